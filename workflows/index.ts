export { jobWorkflow } from './job';
