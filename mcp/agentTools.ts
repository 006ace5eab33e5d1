import { z } from 'zod';
import { characterUpdateSchema, updateCharacter } from '../services/agents/character';
import { createDocument, documentCreateSchema, listDocuments } from '../services/agents/documents';
import {
  changesSomething,
  createMemory,
  memoryChangesSchema,
  memoryCreateSchema,
  memorySearchQuerySchema,
  updateMemory,
} from '../services/agents/memories';
import { searchMemories } from '../services/agents/memorySearch';
import {
  createSkill,
  deleteSkill,
  listSkills,
  skillChangesSchema,
  skillCreateSchema,
  updateSkill,
} from '../services/agents/skills';
import { pageQuerySchema } from '../services/platform/pagination';
import { id, tool, type Tool, type ToolCall } from './toolKit';

/** Every tool here acts on the connected agent unless the call names another agent of the team. */
const agentArg = {
  agentId: z.uuid().optional().describe('The agent (uuid); omitted: the connected agent (svc_agent_info)'),
};
const agentOf = (call: ToolCall, args: { agentId?: string }) => args.agentId ?? call.agentId;

// The HTTP API takes the search as a query string (numbers as text); a tool takes JSON numbers.
const memorySearchArgs = z.strictObject({
  ...agentArg,
  query: memorySearchQuerySchema.shape.q,
  limit: z.number().int().min(1).max(50).default(10),
  cursor: memorySearchQuerySchema.shape.cursor.describe('pagination.nextCursor of the previous page'),
});

/**
 * The agent's own mind: memories, skills, knowledge documents and its character (issue 15 § 6).
 * None is a sensitive write: all of it is the team's own data about its agent, nothing goes out,
 * and each change can be read back and undone with the same tools (so no approval warp).
 */
export const agentKnowledgeTools: Tool[] = [
  tool({
    name: 'create_memory',
    title: 'Remember a fact',
    description:
      'Stores a fact the agent should remember across conversations (a preference, a decision, a detail about ' +
      'a client), with optional tags and importance 1..5 (5: loaded into every turn). Write one self-contained ' +
      'fact per memory. Answers the memory with its id (for update_memory).',
    app: 'core',
    access: 'write',
    input: memoryCreateSchema.extend(agentArg),
    run: (call, { agentId, ...input }) => createMemory(call.ctx.db, call.team.id, agentOf(call, { agentId }), input),
  }),
  tool({
    name: 'update_memory',
    title: 'Update a memory',
    description:
      'Corrects a memory found with search_memories: new content, tags or importance (give only what changes). ' +
      'Answers the updated memory.',
    app: 'core',
    access: 'write',
    input: memoryChangesSchema
      .extend({ ...agentArg, memoryId: id('memory') })
      .refine((m) => changesSomething(m, ['content', 'tags', 'importance']), {
        message: 'give content, tags or importance',
      }),
    run: (call, { agentId, memoryId, ...input }) =>
      updateMemory(call.ctx.db, call.team.id, agentOf(call, { agentId }), memoryId, input),
  }),
  tool({
    name: 'search_memories',
    title: 'Search memories',
    description:
      'Searches the agent\'s memories by words (full text; "quoted phrases" and -exclusions work) and by ' +
      'similarity, so misspelled words still find them; best first, each with a score. Without a query: the ' +
      'most important memories. A page at a time: pass pagination.nextCursor back as cursor. Search before ' +
      'create_memory to update a fact instead of repeating it.',
    app: 'core',
    access: 'read',
    input: memorySearchArgs,
    run: (call, { agentId, query, limit, cursor }) =>
      searchMemories(call.ctx.db, call.team.id, agentOf(call, { agentId }), { q: query, limit, cursor }),
  }),
  tool({
    name: 'list_skills',
    title: 'List skills',
    description:
      "The agent's skills (name, description of when it applies, instructions), a page at a time: pass " +
      'pagination.nextCursor back as cursor for the next page.',
    app: 'core',
    access: 'read',
    input: pageQuerySchema.extend(agentArg).extend({ limit: z.number().int().min(1).max(100).default(25) }),
    run: (call, { agentId, ...page }) => listSkills(call.ctx.db, call.team.id, agentOf(call, { agentId }), page),
  }),
  tool({
    name: 'create_skill',
    title: 'Create a skill',
    description:
      'Teaches the agent a skill: named instructions that a conversation loads when a message matches the ' +
      "skill's description. The name is a slug unique per agent (a taken name answers conflict with the " +
      "existing skill's id: update_skill it instead). Answers the skill.",
    app: 'core',
    access: 'write',
    input: skillCreateSchema.extend(agentArg),
    run: (call, { agentId, ...input }) => createSkill(call.ctx.db, call.team.id, agentOf(call, { agentId }), input),
  }),
  tool({
    name: 'update_skill',
    title: 'Update a skill',
    description:
      "Changes a skill's name, description or instructions (give only what changes; ids from list_skills). " +
      'Answers the skill.',
    app: 'core',
    access: 'write',
    input: skillChangesSchema
      .extend({ ...agentArg, skillId: id('skill') })
      .refine((s) => changesSomething(s, ['name', 'description', 'instructions']), {
        message: 'give name, description or instructions',
      }),
    run: (call, { agentId, skillId, ...input }) =>
      updateSkill(call.ctx.db, call.team.id, agentOf(call, { agentId }), skillId, input),
  }),
  tool({
    name: 'delete_skill',
    title: 'Delete a skill',
    description:
      'Deletes a skill of the agent (id from list_skills); conversations stop loading it. Answers { deleted }.',
    app: 'core',
    access: 'write',
    input: z.strictObject({ ...agentArg, skillId: id('skill') }),
    run: async (call, { agentId, skillId }) => {
      await deleteSkill(call.ctx.db, call.team.id, agentOf(call, { agentId }), skillId);
      return { deleted: skillId };
    },
  }),
  tool({
    name: 'list_documents',
    title: 'List knowledge documents',
    description:
      "The agent's knowledge documents (title, size, chunk count), newest first, a page at a time. A document " +
      'appears once its create_document job has run.',
    app: 'core',
    access: 'read',
    input: pageQuerySchema.extend(agentArg).extend({ limit: z.number().int().min(1).max(100).default(25) }),
    run: (call, { agentId, ...page }) => listDocuments(call.ctx.db, call.team.id, agentOf(call, { agentId }), page),
  }),
  tool({
    name: 'create_document',
    title: 'Add a knowledge document',
    description:
      "Adds a text (title and full text) to the agent's knowledge: a background job splits it into chunks that " +
      'conversations retrieve by the words of a message. Answers { jobId, status, statusUrl }; the document ' +
      'shows in list_documents once the job has run.',
    app: 'core',
    inTurns: 'startsWork',
    access: 'write',
    input: documentCreateSchema.extend(agentArg),
    run: (call, { agentId, ...input }) =>
      createDocument(
        call.ctx,
        call.team,
        call.principal.userId,
        agentOf(call, { agentId }),
        input,
        call.idempotencyKey,
      ),
  }),
  tool({
    name: 'character_update',
    title: "Update the agent's character",
    description:
      "Sets the agent's persona (who it is: voice, role) and/or instructions (rules for every conversation), each " +
      'at most 8000 characters; a field left out stays as it is, null clears it. Answers the character.',
    app: 'core',
    access: 'write',
    input: characterUpdateSchema.extend(agentArg),
    run: (call, { agentId, ...input }) => updateCharacter(call.ctx.db, call.team.id, agentOf(call, { agentId }), input),
  }),
];
