import { z } from 'zod';
import { agentArg, agentParams, onAgent } from './agentParams';
import { changesSomething } from './memories';
import {
  createSkill,
  deleteSkill,
  listSkills,
  skillChangesSchema,
  skillCreateSchema,
  skillSchema,
  skillUpdateSchema,
  updateSkill,
} from './skills';
import { defineOperation, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const tag = 'Agent knowledge';
const skillParams = agentParams.extend({ skillId: z.string() });

const skillListArgs = pageQuerySchema.extend(agentArg).extend({ limit: z.number().int().min(1).max(100).default(25) });
const skillCreateArgs = skillCreateSchema.extend(agentArg);
const skillUpdateArgs = skillChangesSchema
  .extend({ ...agentArg, skillId: id('skill') })
  .refine((s) => changesSomething(s, ['name', 'description', 'instructions']), {
    message: 'give name, description or instructions',
  });
const skillDeleteArgs = z.strictObject({ ...agentArg, skillId: id('skill') });

/** An agent's skills: named instructions a turn loads when a message matches their description. */
export const skillOperations = [
  defineOperation({
    name: 'agentKnowledge.skills',
    access: { level: 'read', app: 'core' },
    output: pageSchema(skillSchema),
    handler: (ctx, { team }, { agentId, ...page }) => listSkills(ctx.db, team.id, agentId, page),
    http: {
      method: 'get',
      path: '/agents/{agentId}/skills',
      tag,
      summary: "List an agent's skills (named instructions a turn loads when relevant)",
      status: 200,
      answer: 'A page of skills',
      params: agentParams,
      query: pageQuerySchema,
    },
    mcp: {
      name: 'list_skills',
      title: 'List skills',
      description:
        "The agent's skills (name, description of when it applies, instructions), a page at a time: pass " +
        'pagination.nextCursor back as cursor for the next page.',
      input: skillListArgs,
      toInput: (args: z.infer<typeof skillListArgs>, caller) => onAgent(args, caller),
    },
  }),
  defineOperation({
    name: 'agentKnowledge.createSkill',
    access: { level: 'write', app: 'core' },
    output: skillSchema,
    handler: (ctx, { team }, { agentId, ...input }) => createSkill(ctx.db, team.id, agentId, input),
    http: {
      method: 'post',
      path: '/agents/{agentId}/skills',
      tag,
      summary: 'Add a skill: a name unique per agent (409 conflict otherwise), when it applies, and what to do',
      status: 201,
      answer: 'The skill',
      params: agentParams,
      body: { schema: skillCreateSchema },
      errors: [409],
    },
    mcp: {
      name: 'create_skill',
      title: 'Create a skill',
      description:
        'Teaches the agent a skill: named instructions that a conversation loads when a message matches the ' +
        "skill's description. The name is a slug unique per agent (a taken name answers conflict with the " +
        "existing skill's id: update_skill it instead). Answers the skill.",
      input: skillCreateArgs,
      toInput: (args: z.infer<typeof skillCreateArgs>, caller) => onAgent(args, caller),
    },
  }),
  defineOperation({
    name: 'agentKnowledge.updateSkill',
    access: { level: 'write', app: 'core' },
    output: skillSchema,
    handler: (ctx, { team }, { agentId, skillId, ...changes }) =>
      updateSkill(ctx.db, team.id, agentId, skillId, changes),
    http: {
      method: 'patch',
      path: '/agents/{agentId}/skills/{skillId}',
      tag,
      summary: "Change a skill's name, description or instructions",
      status: 200,
      answer: 'The skill',
      params: skillParams,
      body: { schema: skillUpdateSchema },
      errors: [409],
    },
    mcp: {
      name: 'update_skill',
      title: 'Update a skill',
      description:
        "Changes a skill's name, description or instructions (give only what changes; ids from list_skills). " +
        'Answers the skill.',
      input: skillUpdateArgs,
      toInput: (args: z.infer<typeof skillUpdateArgs>, caller) => onAgent(args, caller),
    },
  }),
  // HTTP answers 204; a tool answers { deleted }.
  defineOperation({
    name: 'agentKnowledge.deleteSkill',
    access: { level: 'write', app: 'core' },
    handler: async (ctx, { team }, { agentId, skillId }) => {
      await deleteSkill(ctx.db, team.id, agentId, skillId);
      return { deleted: skillId };
    },
    http: {
      method: 'delete',
      path: '/agents/{agentId}/skills/{skillId}',
      tag,
      summary: 'Delete a skill',
      status: 204,
      answer: 'Deleted',
      params: skillParams,
    },
    mcp: {
      name: 'delete_skill',
      title: 'Delete a skill',
      description:
        'Deletes a skill of the agent (id from list_skills); conversations stop loading it. Answers { deleted }.',
      input: skillDeleteArgs,
      toInput: (args: z.infer<typeof skillDeleteArgs>, caller) => onAgent(args, caller),
    },
  }),
];
