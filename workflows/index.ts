export { jobWorkflow } from './job';
export { deliveryWorkflow } from './delivery';
export { campaignWorkflow } from './campaign';
export { whatsappTemplateWorkflow } from './whatsappTemplate';
export { warpExecutionWorkflow } from './warpExecution';
export { roomWorkflow } from './room';
export { turnWorkflow } from './turn';
