export { jobWorkflow } from './job';
export { deliveryWorkflow } from './delivery';
