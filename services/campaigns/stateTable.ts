import type { Channel } from '../../channels/types';
import type { CampaignAction, CampaignStatus } from './schemas';

/**
 * The spec's campaign state table, once: which states allow which operation. The services check
 * their operation against these lists, and every campaign the API answers lists the operations
 * its state allows (`actions`), so a client (the console) shows exactly those.
 */
export const EDITABLE_STATES: CampaignStatus[] = ['draft', 'pending', 'approved', 'rejected'];
/** Send (now, or at a future scheduledAt): Draft, or for WhatsApp only Approved. */
export const sendableStates = (channel: Channel): CampaignStatus[] =>
  channel === 'whatsapp' ? ['approved'] : ['draft'];
/** Retry and archive: a send that has ended. */
export const ENDED_STATES: CampaignStatus[] = ['completed', 'failed'];
export const WHATSAPP_SUBMITTABLE_STATES: CampaignStatus[] = ['draft', 'rejected'];

/** The operations a campaign in this state allows (an archived one: unarchive and delete only, and test sends). */
export function campaignActions(c: { status: CampaignStatus; channel: Channel; archived: boolean }): CampaignAction[] {
  const actions: CampaignAction[] = [];
  const active = !c.archived;
  if (active && EDITABLE_STATES.includes(c.status)) actions.push('edit');
  if (active && sendableStates(c.channel).includes(c.status)) actions.push('send');
  if (c.status === 'scheduled') actions.push('cancel-schedule');
  if (c.status === 'sending') actions.push('cancel-send');
  if (c.channel === 'email') actions.push('test-send');
  if (active && ENDED_STATES.includes(c.status)) actions.push('retry', 'archive');
  if (c.archived) actions.push('unarchive');
  if (c.status !== 'sending') actions.push('delete');
  if (c.channel === 'whatsapp' && WHATSAPP_SUBMITTABLE_STATES.includes(c.status)) actions.push('whatsapp-submit');
  if (c.channel === 'whatsapp' && c.status === 'pending') actions.push('whatsapp-refresh');
  return actions;
}
