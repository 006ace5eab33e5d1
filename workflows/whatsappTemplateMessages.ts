import { defineSignal } from '@temporalio/workflow';

/** The provider's status webhook, forwarded by the API. */
export const templateStatus = defineSignal<[{ status: string; reason?: string }]>('templateStatus');
/** POST /campaigns/{id}/whatsapp/refresh: look at the provider now. */
export const refreshStatus = defineSignal('refreshStatus');
