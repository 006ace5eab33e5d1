/**
 * What the delivery workflow, its activities and the API share. The definitions live in the
 * workflow contracts (workflows/contracts/), which import nothing from services/; this module
 * keeps the API's import path.
 */
export { executionStatusSchema, type ExecutionStatus } from '../../workflows/contracts/execution';
export {
  deliveryDraftSchema,
  deliverySchema,
  type DeliveryDraft,
  type DeliveryInput,
  type DeliveryJson,
  type DeliveryOutcome,
  type DeliveryRecipient,
  type DeliveryResult,
  type DeliveryState,
} from '../../workflows/contracts/delivery';
