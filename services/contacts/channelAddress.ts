import type { Channel } from '../../channels/types';

/**
 * Where a contact is reached on each channel, decided once: an email at its email, SMS and
 * WhatsApp at its phone, push at the `pushToken` custom property. Campaigns read it as SQL over
 * `contacts` (`addressColumn`, `skipReasonSql`); deliveries read it in JS over a contact row
 * (`addressOf`); both come from this table.
 */
const ADDRESS: Record<Channel, { column: 'email' | 'phone' } | { property: string }> = {
  email: { column: 'email' },
  sms: { column: 'phone' },
  whatsapp: { column: 'phone' },
  push: { property: 'pushToken' },
};

/** What the address is called in a message to a person ("Some recipients have no …"). */
export const addressNoun = (channel: Channel) => {
  const where = ADDRESS[channel];
  return 'column' in where ? (where.column === 'email' ? 'email address' : 'phone number') : 'push token';
};

/** The columns of `contacts` that `addressOf` reads. */
export const CONTACT_ADDRESS_COLUMNS = ['email', 'phone', 'properties'] as const;

export interface ContactAddressFields {
  email?: string | null;
  phone?: string | null;
  properties?: Record<string, unknown> | null;
}

/** A contact's address on a channel, or null (an empty value is no address). */
export function addressOf(channel: Channel, contact: ContactAddressFields): string | null {
  const where = ADDRESS[channel];
  const value = 'column' in where ? contact[where.column] : contact.properties?.[where.property];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The same address as an SQL expression over `contacts`. */
export function addressColumn(channel: Channel): string {
  const where = ADDRESS[channel];
  return 'column' in where ? `contacts.${where.column}` : `contacts.properties->>'${where.property}'`;
}

/** Why a contact is not sent a campaign (`skipReasonSql` decides which); a preview answers a count of each, in this order. */
export const SKIP_REASONS = ['pending_consent', 'opted_out', 'missing_channel'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * Why a contact would be skipped on this channel, as SQL (null: sendable). Opt-out first, then
 * consent, then a usable address.
 */
export const skipReasonSql = (channel: Channel) => `CASE
  WHEN contacts.opted_out_at IS NOT NULL THEN 'opted_out'
  WHEN contacts.marketing_consent <> 'granted' THEN 'pending_consent'
  WHEN coalesce(${addressColumn(channel)}, '') = '' THEN 'missing_channel'
  ELSE NULL END`;
