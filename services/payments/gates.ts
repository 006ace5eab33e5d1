import type { AppContext } from '../platform/context';
import { openGate, type PaymentGate } from './gate';
import type { PaymentGateConfig } from './schemas';
import { x402Gate } from './x402';

/** The gate an agent's setting asks for. A new kind of gate is a new case here and in paymentGateSchema. */
export function paymentGateFor(ctx: AppContext, config: PaymentGateConfig): PaymentGate {
  switch (config.kind) {
    case 'off':
      return openGate;
    case 'x402':
      return x402Gate(ctx, config);
  }
}
