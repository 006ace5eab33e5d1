export { jobWorkflow } from './job';
export { deliveryWorkflow } from './delivery';
export { campaignWorkflow } from './campaign';
