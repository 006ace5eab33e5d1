import { z } from 'zod';
import { agentArg, agentParams, onAgent } from './agentParams';
import { characterSchema, characterUpdateSchema, getCharacter, updateCharacter } from './character';
import { createDocument, documentCreateSchema, documentSchema, listDocuments } from './documents';
import {
  changesSomething,
  createMemory,
  deleteMemory,
  memoryChangesSchema,
  memoryCreateSchema,
  memoryHitSchema,
  memorySchema,
  memorySearchQuerySchema,
  memoryUpdateSchema,
  updateMemory,
} from './memories';
import { searchMemories } from './memorySearch';
import { skillOperations } from './skillOperations';
import { jobAcceptedSchema } from '../jobs/jobs';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const tag = 'Agent knowledge';
const memoryParams = agentParams.extend({ memoryId: z.string() });

// The HTTP API takes the search as a query string (numbers as text); a tool takes JSON numbers.
const memorySearchArgs = z.strictObject({
  ...agentArg,
  query: memorySearchQuerySchema.shape.q,
  limit: z.number().int().min(1).max(50).default(10),
  cursor: memorySearchQuerySchema.shape.cursor.describe('pagination.nextCursor of the previous page'),
});
const memoryCreateArgs = memoryCreateSchema.extend(agentArg);
const memoryUpdateArgs = memoryChangesSchema
  .extend({ ...agentArg, memoryId: id('memory') })
  .refine((m) => changesSomething(m, ['content', 'tags', 'importance']), {
    message: 'give content, tags or importance',
  });
const documentListArgs = pageQuerySchema
  .extend(agentArg)
  .extend({ limit: z.number().int().min(1).max(100).default(25) });
const documentCreateArgs = documentCreateSchema.extend(agentArg);
const characterUpdateArgs = characterUpdateSchema.extend(agentArg);

/**
 * The agent's own mind: memories, skills, knowledge documents and its character (issue 15 § 6), over
 * HTTP and as core MCP tools. None is a sensitive write: all of it is the team's own data about its
 * agent, nothing goes out, and each change can be read back and undone with the same tools (so no
 * approval warp).
 */
export const agentKnowledge: Feature = {
  name: 'agentKnowledge',
  operations: [
    defineOperation({
      name: 'agentKnowledge.searchMemories',
      access: { level: 'read', app: 'core' },
      output: pageSchema(memoryHitSchema),
      handler: (ctx, { team }, { agentId, ...query }) => searchMemories(ctx.db, team.id, agentId, query),
      http: {
        method: 'get',
        path: '/agents/{agentId}/memories',
        tag,
        summary: "Search an agent's memories (full text and typo-tolerant, fused by rank); without q, the top ones",
        status: 200,
        answer: 'A page of hits, best first',
        params: agentParams,
        query: memorySearchQuerySchema,
      },
      mcp: {
        name: 'search_memories',
        title: 'Search memories',
        description:
          'Searches the agent\'s memories by words (full text; "quoted phrases" and -exclusions work) and by ' +
          'similarity, so misspelled words still find them; best first, each with a score. Without a query: the ' +
          'most important memories. A page at a time: pass pagination.nextCursor back as cursor. Search before ' +
          'create_memory to update a fact instead of repeating it.',
        input: memorySearchArgs,
        toInput: ({ query, ...args }: z.infer<typeof memorySearchArgs>, caller) =>
          onAgent({ ...args, q: query }, caller),
      },
    }),
    defineOperation({
      name: 'agentKnowledge.createMemory',
      access: { level: 'write', app: 'core' },
      output: memorySchema,
      handler: (ctx, { team }, { agentId, ...input }) => createMemory(ctx.db, team.id, agentId, input),
      http: {
        method: 'post',
        path: '/agents/{agentId}/memories',
        tag,
        summary: 'Remember a fact (content, tags, importance 1..5)',
        status: 201,
        answer: 'The memory',
        params: agentParams,
        body: { schema: memoryCreateSchema },
      },
      mcp: {
        name: 'create_memory',
        title: 'Remember a fact',
        description:
          'Stores a fact the agent should remember across conversations (a preference, a decision, a detail about ' +
          'a client), with optional tags and importance 1..5 (5: loaded into every turn). Write one self-contained ' +
          'fact per memory. Answers the memory with its id (for update_memory).',
        input: memoryCreateArgs,
        toInput: (args: z.infer<typeof memoryCreateArgs>, caller) => onAgent(args, caller),
      },
    }),
    defineOperation({
      name: 'agentKnowledge.updateMemory',
      access: { level: 'write', app: 'core' },
      output: memorySchema,
      handler: (ctx, { team }, { agentId, memoryId, ...changes }) =>
        updateMemory(ctx.db, team.id, agentId, memoryId, changes),
      http: {
        method: 'patch',
        path: '/agents/{agentId}/memories/{memoryId}',
        tag,
        summary: "Change a memory's content, tags or importance",
        status: 200,
        answer: 'The memory',
        params: memoryParams,
        body: { schema: memoryUpdateSchema },
      },
      mcp: {
        name: 'update_memory',
        title: 'Update a memory',
        description:
          'Corrects a memory found with search_memories: new content, tags or importance (give only what changes). ' +
          'Answers the updated memory.',
        input: memoryUpdateArgs,
        toInput: (args: z.infer<typeof memoryUpdateArgs>, caller) => onAgent(args, caller),
      },
    }),
    defineOperation({
      name: 'agentKnowledge.deleteMemory',
      access: { level: 'write', app: 'core' },
      handler: (ctx, { team }, { agentId, memoryId }) => deleteMemory(ctx.db, team.id, agentId, memoryId),
      http: {
        method: 'delete',
        path: '/agents/{agentId}/memories/{memoryId}',
        tag,
        summary: 'Forget a memory',
        status: 204,
        answer: 'Forgotten',
        params: memoryParams,
      },
    }),
    ...skillOperations,
    defineOperation({
      name: 'agentKnowledge.documents',
      access: { level: 'read', app: 'core' },
      output: pageSchema(documentSchema),
      handler: (ctx, { team }, { agentId, ...page }) => listDocuments(ctx.db, team.id, agentId, page),
      http: {
        method: 'get',
        path: '/agents/{agentId}/documents',
        tag,
        summary: "List an agent's knowledge documents, newest first, with their chunk counts",
        status: 200,
        answer: 'A page of documents',
        params: agentParams,
        query: pageQuerySchema,
      },
      mcp: {
        name: 'list_documents',
        title: 'List knowledge documents',
        description:
          "The agent's knowledge documents (title, size, chunk count), newest first, a page at a time. A document " +
          'appears once its create_document job has run.',
        input: documentListArgs,
        toInput: (args: z.infer<typeof documentListArgs>, caller) => onAgent(args, caller),
      },
    }),
    defineOperation({
      name: 'agentKnowledge.createDocument',
      access: { level: 'write', app: 'core', inTurns: 'startsWork' },
      output: jobAcceptedSchema,
      handler: (ctx, { team, principal, idempotencyKey }, { agentId, ...input }) =>
        createDocument(ctx, team, principal.userId, agentId, input, idempotencyKey),
      http: {
        method: 'post',
        path: '/agents/{agentId}/documents',
        tag,
        summary: 'Add a knowledge document: starts a knowledge.ingest job; the document is listed once it has run',
        description: 'The body may be up to `JOB_BODY_LIMIT` (64 MB); the text up to 5 000 000 characters.',
        status: 202,
        answer: 'Accepted; poll statusUrl',
        params: agentParams,
        body: { schema: documentCreateSchema, limit: 'JOB_BODY_LIMIT' },
        location: (accepted) => accepted.statusUrl,
        errors: [503],
      },
      mcp: {
        name: 'create_document',
        title: 'Add a knowledge document',
        description:
          "Adds a text (title and full text) to the agent's knowledge: a background job splits it into chunks that " +
          'conversations retrieve by the words of a message. Answers { jobId, status, statusUrl }; the document ' +
          'shows in list_documents once the job has run.',
        input: documentCreateArgs,
        toInput: (args: z.infer<typeof documentCreateArgs>, caller) => onAgent(args, caller),
      },
    }),
    defineOperation({
      name: 'agentKnowledge.character',
      access: { level: 'read', app: 'core' },
      output: characterSchema,
      handler: (ctx, { team }, { agentId }) => getCharacter(ctx.db, team.id, agentId),
      http: {
        method: 'get',
        path: '/agents/{agentId}/character',
        tag,
        summary: "An agent's character: its persona and instructions",
        status: 200,
        answer: 'The character',
        params: agentParams,
      },
    }),
    defineOperation({
      name: 'agentKnowledge.updateCharacter',
      access: { level: 'write', app: 'core' },
      output: characterSchema,
      handler: (ctx, { team }, { agentId, ...input }) => updateCharacter(ctx.db, team.id, agentId, input),
      http: {
        method: 'put',
        path: '/agents/{agentId}/character',
        tag,
        summary:
          'Set the persona and/or instructions (each at most 8000 characters; a field left out stays, null clears)',
        status: 200,
        answer: 'The character',
        params: agentParams,
        body: { schema: characterUpdateSchema },
      },
      mcp: {
        name: 'character_update',
        title: "Update the agent's character",
        description:
          "Sets the agent's persona (who it is: voice, role) and/or instructions (rules for every conversation), each " +
          'at most 8000 characters; a field left out stays as it is, null clears it. Answers the character.',
        input: characterUpdateArgs,
        toInput: (args: z.infer<typeof characterUpdateArgs>, caller) => onAgent(args, caller),
      },
    }),
  ],
};
