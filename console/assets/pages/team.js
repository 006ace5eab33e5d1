// @ts-check
/* Team: its profile, place and settings (a team admin changes them), and the MCP credits of this cycle. */
import { getCredits, getTeam, listMedia, updateTeam, updateTeamPlace, updateTeamSettings } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { facts, fill, h, when } from '../lib/dom.js';
import { content, setStatus, vocabulary } from '../lib/frame.js';
import { smallForm } from '../lib/widgets.js';
/** @import { Body, Ok } from '../api/types' */
/** @typedef {Ok<'/team', 'get'>} Team */
/** @typedef {NonNullable<Body<'/team/settings', 'patch'>['studio']>} StudioPatch */

/** A field's text, or null: an empty field removes the value (the API's JSON merge patch). */
const orNull = (/** @type {string} */ text) => text.trim() || null;

/** The place in one line: "Keizersgracht 1, Amsterdam, NL · nl-NL · Europe/Amsterdam". */
function placeText(/** @type {Team['place']} */ place) {
  const a = place.address || {};
  const address = [a.line1, a.line2, [a.postalCode, a.city].filter(Boolean).join(' '), a.region, a.country]
    .filter(Boolean)
    .join(', ');
  return [address, place.locale, place.timezone].filter(Boolean).join(' · ');
}

/** The media library's files, id to name (the logo is one). @type {Map<string, string>} */
const fileNames = new Map();

/** The settings in words (what is set; the rest is the default). */
function settingsText(/** @type {Team['settings']} */ s) {
  const logo = s.brand && s.brand.logoMediaId;
  return [
    s.brand && s.brand.color ? 'brand colour ' + s.brand.color : '',
    logo ? 'logo ' + (fileNames.get(logo) || logo) : '',
    s.studio && s.studio.artifactType ? 'studio exports ' + s.studio.artifactType : '',
    s.studio && s.studio.artifactStatus ? 'as ' + s.studio.artifactStatus : '',
    s.rooms && s.rooms.eventRetentionHours ? 'room events kept ' + s.rooms.eventRetentionHours + ' h' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

function drawTeam(/** @type {HTMLElement} */ box, /** @type {Team} */ team) {
  fill(
    box,
    h('h2', { id: 'team-title' }, team.name),
    facts([
      ['Slug', team.slug],
      ['Plan', team.plan],
      ['Listed publicly', team.public ? 'yes' : 'no'],
      ['Description', team.description],
      ['Place', placeText(team.place) || 'not set'],
      ['Settings', settingsText(team.settings) || 'the defaults'],
      ['Created', when(team.createdAt)],
    ]),
  );
}

/** A cycle's edge: a day (the cycles are UTC months). */
const day = (/** @type {string} */ iso) => new Date(iso).toLocaleDateString(undefined, { timeZone: 'UTC' });

async function drawCredits(/** @type {HTMLElement} */ box) {
  const res = await getCredits();
  if (res.status !== 200) return fill(box, h('h2', {}, 'MCP credits'), h('p', { class: 'error' }, errorText(res)));
  const c = res.body;
  fill(
    box,
    h('h2', { id: 'credits-title' }, 'MCP credits this cycle'),
    facts([
      ['Plan', c.plan],
      ['Used', c.allowance === null ? c.used + ' (not metered)' : c.used + ' of ' + c.allowance],
      ['Remaining', c.remaining === null ? 'no limit' : String(c.remaining)],
      ['Tool calls', String(c.calls)],
      ['Refused for want of credits', String(c.refused)],
      ['Cycle', day(c.cycleStart) + ' until ' + day(c.cycleEnd)],
    ]),
    h('p', { class: 'muted' }, 'An MCP read costs 1 credit, a write 2.'),
  );
}

export default async function teamPage() {
  const [res, images] = await Promise.all([getTeam(), listMedia({ limit: 100 })]);
  if (res.status !== 200) return setStatus(errorText(res));
  let team = res.body;
  for (const m of images.status === 200 ? images.body.data : []) fileNames.set(m.id, m.filename);
  const summary = h('section', { class: 'card', id: 'team-summary', 'aria-labelledby': 'team-title' });
  const credits = h('section', { class: 'card', id: 'credits', 'aria-labelledby': 'credits-title' });
  /** Redraws what the API answered a change with (the team), and says so. */
  const saved = (/** @type {{ status: number, body: Team }} */ answer) => {
    if (answer.status !== 200) return errorText(answer);
    team = answer.body;
    drawTeam(summary, team);
    return 'Saved.';
  };

  const profile = smallForm(
    'profile',
    'Name and listing',
    [
      { name: 'name', label: 'Name', required: true },
      { name: 'description', label: 'Description', type: 'textarea' },
      { name: 'public', label: 'List the team publicly (list_public_teams)', type: 'checkbox' },
    ],
    'Save name and listing',
    async (/** @type {{ name: string, description: string, public: boolean }} */ v) =>
      saved(await updateTeam({ name: v.name.trim(), description: orNull(v.description), public: v.public })),
  );

  const addressFields = /** @type {const} */ (['line1', 'line2', 'city', 'region', 'postalCode', 'country']);
  const place = smallForm(
    'place',
    'Place',
    [
      { name: 'line1', label: 'Address line 1' },
      { name: 'line2', label: 'Address line 2' },
      { name: 'city', label: 'City' },
      { name: 'region', label: 'Region' },
      { name: 'postalCode', label: 'Postal code' },
      { name: 'country', label: 'Country (ISO code, e.g. NL)' },
      { name: 'locale', label: 'Locale (e.g. en-GB)' },
      { name: 'timezone', label: 'Time zone (e.g. Europe/Amsterdam)' },
    ],
    'Save place',
    async (/** @type {Record<string, string>} */ v) => {
      /** @type {Record<string, string | null>} */
      const address = {};
      for (const name of addressFields) address[name] = orNull(v[name]);
      const anyAddress = Object.values(address).some((x) => x !== null);
      return saved(
        await updateTeamPlace({
          address: anyAddress ? address : null,
          locale: orNull(v.locale),
          timezone: orNull(v.timezone),
        }),
      );
    },
  );

  const settings = smallForm(
    'settings',
    'Settings',
    [
      { name: 'color', label: 'Brand colour (#rrggbb)' },
      {
        name: 'logo',
        label: 'Logo (an image of the media library)',
        type: 'select',
        options: [
          ['', '(none)'],
          ...(images.status === 200 ? images.body.data : [])
            .filter((m) => m.contentType.startsWith('image/'))
            .map((m) => /** @type {[string, string]} */ ([m.id, m.filename])),
        ],
      },
      {
        name: 'artifactType',
        label: 'Type of the artifacts studio_export creates',
        type: 'select',
        options: [
          ['', 'other (the default)'],
          ...vocabulary.artifactTypes.map((t) => /** @type {[string, string]} */ ([t, t])),
        ],
      },
      {
        name: 'artifactStatus',
        label: 'Their status',
        type: 'select',
        options: [
          ['', 'draft (the default)'],
          ['draft', 'draft'],
          ['ready', 'ready'],
        ],
      },
      { name: 'retention', label: 'Keep room events for (hours, at least 24; empty: the default)', type: 'number' },
    ],
    'Save settings',
    async (/** @type {Record<string, string>} */ v) =>
      saved(
        await updateTeamSettings({
          brand: { color: orNull(v.color), logoMediaId: orNull(v.logo) },
          studio: {
            artifactType: /** @type {StudioPatch['artifactType']} */ (orNull(v.artifactType)),
            artifactStatus: /** @type {StudioPatch['artifactStatus']} */ (orNull(v.artifactStatus)),
          },
          rooms: { eventRetentionHours: v.retention.trim() ? Number(v.retention) : null },
        }),
      ),
  );

  // The forms start from the team as the API has it.
  const set = (
    /** @type {Record<string, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>} */ inputs,
    /** @type {Record<string, string | undefined | null>} */ values,
  ) => {
    for (const [name, value] of Object.entries(values)) inputs[name].value = value || '';
  };
  set(profile.inputs, { name: team.name, description: team.description });
  /** @type {HTMLInputElement} */ (profile.inputs.public).checked = team.public;
  set(place.inputs, { ...team.place.address, locale: team.place.locale, timezone: team.place.timezone });
  const s = team.settings;
  set(settings.inputs, {
    color: s.brand && s.brand.color,
    logo: s.brand && s.brand.logoMediaId,
    artifactType: s.studio && s.studio.artifactType,
    artifactStatus: s.studio && s.studio.artifactStatus,
    retention: s.rooms && s.rooms.eventRetentionHours ? String(s.rooms.eventRetentionHours) : '',
  });
  settings.inputs.retention.setAttribute('min', '24');

  drawTeam(summary, team);
  content.replaceChildren(
    h('div', { class: 'cards' }, summary, credits),
    h(
      'p',
      { class: 'muted' },
      'A team admin changes these; a field left empty removes its value. The media library holds the logo: see ',
      h('a', { href: '/app/media' }, 'Media'),
      '.',
    ),
    h('div', { class: 'cards', id: 'team-forms' }, profile.form, place.form, settings.form),
  );
  await drawCredits(credits);
  setStatus('');
}
