/** The spec's Error resource, as workflow results carry it; its schema is in ./schemas (kept out of the workflow bundle). */
export type { ErrorBody } from './schemas';
