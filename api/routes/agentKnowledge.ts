import { z } from 'zod';
import { characterSchema, characterUpdateSchema, getCharacter, updateCharacter } from '../../services/agents/character';
import { createDocument, documentCreateSchema, documentSchema, listDocuments } from '../../services/agents/documents';
import {
  createMemory,
  deleteMemory,
  memoryCreateSchema,
  memoryHitSchema,
  memorySchema,
  memorySearchQuerySchema,
  memoryUpdateSchema,
  updateMemory,
} from '../../services/agents/memories';
import { searchMemories } from '../../services/agents/memorySearch';
import {
  createSkill,
  deleteSkill,
  listSkills,
  skillCreateSchema,
  skillSchema,
  skillUpdateSchema,
  updateSkill,
} from '../../services/agents/skills';
import { jobAcceptedSchema } from '../../services/jobs/jobs';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const agentParams = z.object({ agentId: z.string() });
const memoryParams = agentParams.extend({ memoryId: z.string() });
const skillParams = agentParams.extend({ skillId: z.string() });
const tag = 'Agent knowledge';

/** An agent's memories, skills, knowledge documents and character over HTTP (the MCP tools' twins). */
export function agentKnowledgeRoutes(ctx: AppContext): Route[] {
  const teamOf = (req: Parameters<typeof authOf>[0]) => authOf(req).team.id;
  return [
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/memories',
      tag,
      access: 'read',
      summary: "Search an agent's memories (full text and typo-tolerant, fused by rank); without q, the top ones",
      params: agentParams,
      query: memorySearchQuerySchema,
      responses: { 200: json(pageSchema(memoryHitSchema), 'A page of hits, best first') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await searchMemories(ctx.db, teamOf(req), params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/memories',
      tag,
      access: 'write',
      summary: 'Remember a fact (content, tags, importance 1..5)',
      params: agentParams,
      body: { kind: 'json', schema: memoryCreateSchema },
      responses: { 201: json(memorySchema, 'The memory') },
      handler: async ({ req, params, body }) => ({
        status: 201,
        body: await createMemory(ctx.db, teamOf(req), params.agentId, body),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/agents/{agentId}/memories/{memoryId}',
      tag,
      access: 'write',
      summary: "Change a memory's content, tags or importance",
      params: memoryParams,
      body: { kind: 'json', schema: memoryUpdateSchema },
      responses: { 200: json(memorySchema, 'The memory') },
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateMemory(ctx.db, teamOf(req), params.agentId, params.memoryId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/{agentId}/memories/{memoryId}',
      tag,
      access: 'write',
      summary: 'Forget a memory',
      params: memoryParams,
      responses: { 204: noContent('Forgotten') },
      handler: async ({ req, params }) => {
        await deleteMemory(ctx.db, teamOf(req), params.agentId, params.memoryId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/skills',
      tag,
      access: 'read',
      summary: "List an agent's skills (named instructions a turn loads when relevant)",
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(skillSchema), 'A page of skills') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listSkills(ctx.db, teamOf(req), params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/skills',
      tag,
      access: 'write',
      summary: 'Add a skill: a name unique per agent (409 conflict otherwise), when it applies, and what to do',
      params: agentParams,
      body: { kind: 'json', schema: skillCreateSchema },
      responses: { 201: json(skillSchema, 'The skill') },
      errors: [409],
      handler: async ({ req, params, body }) => ({
        status: 201,
        body: await createSkill(ctx.db, teamOf(req), params.agentId, body),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/agents/{agentId}/skills/{skillId}',
      tag,
      access: 'write',
      summary: "Change a skill's name, description or instructions",
      params: skillParams,
      body: { kind: 'json', schema: skillUpdateSchema },
      responses: { 200: json(skillSchema, 'The skill') },
      errors: [409],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateSkill(ctx.db, teamOf(req), params.agentId, params.skillId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/{agentId}/skills/{skillId}',
      tag,
      access: 'write',
      summary: 'Delete a skill',
      params: skillParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteSkill(ctx.db, teamOf(req), params.agentId, params.skillId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/documents',
      tag,
      access: 'read',
      summary: "List an agent's knowledge documents, newest first, with their chunk counts",
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(documentSchema), 'A page of documents') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listDocuments(ctx.db, teamOf(req), params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/documents',
      tag,
      access: 'write',
      summary: 'Add a knowledge document: starts a knowledge.ingest job; the document is listed once it has run',
      description: 'The body may be up to `JOB_BODY_LIMIT` (64 MB); the text up to 5 000 000 characters.',
      params: agentParams,
      body: { kind: 'json', schema: documentCreateSchema, limit: 'JOB_BODY_LIMIT' },
      responses: { 202: json(jobAcceptedSchema, 'Accepted; poll statusUrl', locationHeader) },
      errors: [503],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        const accepted = await createDocument(ctx, team, principal.userId, params.agentId, body);
        return { status: 202, body: accepted, headers: { Location: accepted.statusUrl } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/character',
      tag,
      access: 'read',
      summary: "An agent's character: its persona and instructions",
      params: agentParams,
      responses: { 200: json(characterSchema, 'The character') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getCharacter(ctx.db, teamOf(req), params.agentId),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/agents/{agentId}/character',
      tag,
      access: 'write',
      summary:
        'Set the persona and/or instructions (each at most 8000 characters; a field left out stays, null clears)',
      params: agentParams,
      body: { kind: 'json', schema: characterUpdateSchema },
      responses: { 200: json(characterSchema, 'The character') },
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateCharacter(ctx.db, teamOf(req), params.agentId, body),
      }),
    }),
  ];
}
