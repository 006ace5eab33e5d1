import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The custom search attributes every workflow carries, so the Temporal UI answers "which team,
 * what, which id". Here, with the contracts, because workflows set them on their children too
 * (and workflow code may not import the client).
 */
export const TeamSlugKey = defineSearchAttributeKey('TeamSlug', SearchAttributeType.KEYWORD);
export const JobTypeKey = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
export const BusinessIdKey = defineSearchAttributeKey('BusinessId', SearchAttributeType.KEYWORD);
/** A journey's cohort: the automation it runs, and the step it is at (docs/AUTOMATIONS.md › Cohorts). */
export const AutomationIdKey = defineSearchAttributeKey('AutomationId', SearchAttributeType.KEYWORD);
export const JourneyStepKey = defineSearchAttributeKey('JourneyStep', SearchAttributeType.INT);
