/**
 * What the delivery workflow, its activities and the API share. The definitions live in the
 * workflow contracts (workflows/contracts/, the schemas in its schemas.ts), which import nothing
 * from services/; this module keeps the API's import path.
 */
export {
  executionStatusSchema,
  deliveryDraftSchema,
  deliverySchema,
  type ExecutionStatus,
  type DeliveryDraft,
  type DeliveryJson,
} from '../../workflows/contracts/schemas';
export {
  type DeliveryInput,
  type DeliveryOutcome,
  type DeliveryRecipient,
  type DeliveryResult,
  type DeliveryState,
} from '../../workflows/contracts/delivery';
