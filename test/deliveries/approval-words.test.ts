import { approvalPage, noticePage } from '../../auth/pages';
import { decidedWords, formatUtc, relativeTime } from '../../services/deliveries/approvalPages';

/** The words of the approval link's pages for states the browser test does not reach (expired, failed), and their escaping. */
describe('approval page words', () => {
  const base = {
    error: null,
    approval_expires_at: new Date('2026-11-30T12:45:00Z'),
    approval_link_used_at: null,
    updated_at: new Date('2026-11-30T12:45:03Z'),
  };

  it('says each state in words, never the raw status', () => {
    expect(decidedWords('delivery', { ...base, status: 'pending_approval' })).toBeNull();
    expect(decidedWords('delivery', { ...base, status: 'succeeded' })!.sentence).toBe(
      'This delivery was already approved and sent.',
    );
    expect(decidedWords('delivery', { ...base, status: 'running' })!.sentence).toBe(
      'This delivery was approved and is being sent.',
    );
    expect(decidedWords('delivery', { ...base, status: 'declined' })!.sentence).toBe(
      'This delivery was declined. Nothing was sent.',
    );
    expect(decidedWords('delivery', { ...base, status: 'expired' })!.sentence).toBe(
      'This delivery expired on Monday, 30 November 2026 at 12:45 UTC without being approved. Nothing was sent.',
    );
    expect(
      decidedWords('request', {
        ...base,
        status: 'failed',
        error: { error: { code: 'invalid_state', message: 'A sending campaign cannot be sent' } },
      })!.sentence,
    ).toBe('This request could not be completed: A sending campaign cannot be sent.');
    expect(
      decidedWords('request', { ...base, status: 'pending_approval', approval_link_used_at: new Date() })!.heading,
    ).toBe('This link was already used');
  });

  it('gives expiry as an absolute UTC time and the largest whole unit from now', () => {
    const now = new Date('2026-11-23T12:45:10Z');
    expect(formatUtc(new Date('2026-11-30T12:45:00Z'))).toBe('Monday, 30 November 2026 at 12:45 UTC');
    expect(relativeTime(new Date('2026-11-30T12:45:00Z'), now)).toBe('in 6 days');
    expect(relativeTime(new Date('2026-11-23T15:50:00Z'), now)).toBe('in 3 hours');
    expect(relativeTime(new Date('2026-11-23T12:46:30Z'), now)).toBe('in 1 minute');
    expect(relativeTime(new Date('2026-11-23T12:45:30Z'), now)).toBe('in less than a minute');
    expect(relativeTime(new Date('2026-11-21T12:00:00Z'), now)).toBe('2 days ago');
  });

  it('escapes everything a sender or agent wrote', () => {
    const page = approvalPage({
      question: 'Approve this delivery?',
      summary: 'Bot <script>alert(1)</script> of team A&B wants to send this message.',
      facts: [{ label: 'From', value: '"><img src=x>' }],
      recipients: [{ name: '<b>Eve</b>', address: 'eve@example.test' }],
      message: { subject: '</title><script>', body: 'Hi <i>you</i>' },
      approveLabel: 'Approve and send',
      action: '/v1/warp-executions/wx_1/approval?expires=1&sig=a"b',
    });
    expect(page).not.toMatch(/<script>|<img|<b>Eve|<i>you/);
    expect(page).toContain('Bot &lt;script&gt;alert(1)&lt;/script&gt; of team A&amp;B');
    expect(page).toContain('action="/v1/warp-executions/wx_1/approval?expires=1&amp;sig=a&quot;b"');
    expect(noticePage({ title: 'Done', paragraphs: ['<u>x</u>'], kind: 'done' })).toContain('&lt;u&gt;x&lt;/u&gt;');
  });

  it('only an error page sends the reader back to the application', () => {
    expect(noticePage({ title: 'Declined', paragraphs: ['You declined this delivery.'], kind: 'done' })).toContain(
      'You can close this tab.',
    );
    expect(noticePage({ title: 'Declined', paragraphs: ['You declined this delivery.'], kind: 'done' })).not.toMatch(
      /application/,
    );
    expect(noticePage({ title: 'This link is not valid', paragraphs: ['Wrong link.'], kind: 'error' })).toMatch(
      /start again from the application/,
    );
  });
});
