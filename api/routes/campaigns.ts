import { Router } from 'express';
import {
  archiveCampaign, audiencePreviewSchema, cardDecisionSchema, decideCards, listCards, campaignCreateSchema, campaignListQuerySchema, campaignRetrySchema, campaignSendSchema, campaignStats,
  campaignTestSendSchema, campaignUpdateSchema, cancelSchedule, cancelSend, createCampaign, deleteCampaign, getCampaign,
  listCampaigns, listRecipients, previewCampaignAudience, recipientQuerySchema, refreshWhatsapp, retryCampaign, sendCampaign, submitWhatsapp, testSendCampaign, updateCampaign,
} from '../../services/campaigns';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { pageQuerySchema } from '../../services/pagination';
import { createSegment, deleteSegment, getSegment, listSegments, segmentContacts, segmentCreateSchema } from '../../services/segments';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

/** Campaigns and segments (mounted once at /v1). */
export function campaignsRouter(ctx: AppContext): Router {
  const router = Router();
  const body = jsonBody(ctx.config.BODY_LIMIT);
  const id = (req: { params: Record<string, unknown> }) => String(req.params.campaignId);
  const optionalBody = (req: { body?: unknown }) => (req.body === undefined ? {} : requireObjectBody(req as never));

  router.get('/segments', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listSegments(ctx.db, authOf(req).team.id, parseOrThrow(pageQuerySchema, req.query, 'query')));
  });
  router.post('/segments', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    res.status(201).json(await createSegment(ctx.db, authOf(req).team.id, parseOrThrow(segmentCreateSchema, requireObjectBody(req), 'body')));
  });
  router.get('/segments/:segmentId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getSegment(ctx.db, authOf(req).team.id, String(req.params.segmentId)));
  });
  router.get('/segments/:segmentId/contacts', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await segmentContacts(ctx.db, authOf(req).team.id, String(req.params.segmentId), parseOrThrow(pageQuerySchema, req.query, 'query')));
  });
  router.delete('/segments/:segmentId', teamAccess(ctx, 'write'), async (req, res) => {
    await deleteSegment(ctx.db, authOf(req).team.id, String(req.params.segmentId));
    res.status(204).end();
  });

  router.post('/campaigns/audience-preview', teamAccess(ctx, 'read'), ...body, async (req, res) => {
    res.json(await previewCampaignAudience(ctx.db, authOf(req).team.id, parseOrThrow(audiencePreviewSchema, requireObjectBody(req), 'body')));
  });

  router.get('/campaigns', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listCampaigns(ctx.db, authOf(req).team.id, parseOrThrow(campaignListQuerySchema, req.query, 'query')));
  });
  router.post('/campaigns', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const { team, principal } = authOf(req);
    const campaign = await createCampaign(ctx, team, principal, parseOrThrow(campaignCreateSchema, requireObjectBody(req), 'body'));
    res.status(201).setHeader('Location', `${ctx.config.baseUrl}/campaigns/${campaign.id}`).json(campaign);
  });
  router.get('/campaigns/:campaignId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getCampaign(ctx.db, authOf(req).team.id, id(req)));
  });
  router.patch('/campaigns/:campaignId', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const { team, principal } = authOf(req);
    res.json(await updateCampaign(ctx, team, principal, id(req), parseOrThrow(campaignUpdateSchema, requireObjectBody(req), 'body')));
  });
  router.delete('/campaigns/:campaignId', teamAccess(ctx, 'write'), async (req, res) => {
    await deleteCampaign(ctx, authOf(req).team.id, id(req));
    res.status(204).end();
  });
  router.post('/campaigns/:campaignId/send', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    res.json(await sendCampaign(ctx, authOf(req).team, id(req), parseOrThrow(campaignSendSchema, optionalBody(req), 'body')));
  });
  router.post('/campaigns/:campaignId/cancel-schedule', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await cancelSchedule(ctx, authOf(req).team.id, id(req)));
  });
  router.post('/campaigns/:campaignId/cancel-send', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await cancelSend(ctx, authOf(req).team.id, id(req)));
  });
  router.post('/campaigns/:campaignId/retry', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    res.json(await retryCampaign(ctx, authOf(req).team, id(req), parseOrThrow(campaignRetrySchema, optionalBody(req), 'body')));
  });
  router.post('/campaigns/:campaignId/archive', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await archiveCampaign(ctx.db, authOf(req).team.id, id(req), true));
  });
  router.post('/campaigns/:campaignId/unarchive', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await archiveCampaign(ctx.db, authOf(req).team.id, id(req), false));
  });
  router.post('/campaigns/:campaignId/send-test', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    res.json(await testSendCampaign(ctx, authOf(req).team.id, id(req), parseOrThrow(campaignTestSendSchema, requireObjectBody(req), 'body')));
  });
  router.post('/campaigns/:campaignId/whatsapp/submit', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await submitWhatsapp(ctx, authOf(req).team, id(req)));
  });
  router.post('/campaigns/:campaignId/whatsapp/refresh', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await refreshWhatsapp(ctx, authOf(req).team.id, id(req)));
  });
  router.get('/campaigns/:campaignId/cards', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listCards(ctx.db, authOf(req).team.id, id(req), parseOrThrow(recipientQuerySchema, req.query, 'query')));
  });
  router.post('/campaigns/:campaignId/cards', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    res.json(await decideCards(ctx, authOf(req).team.id, id(req), parseOrThrow(cardDecisionSchema, requireObjectBody(req), 'body')));
  });
  router.get('/campaigns/:campaignId/recipients', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listRecipients(ctx.db, authOf(req).team.id, id(req), parseOrThrow(recipientQuerySchema, req.query, 'query')));
  });
  router.get('/campaigns/:campaignId/stats', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await campaignStats(ctx.db, authOf(req).team.id, id(req)));
  });
  return router;
}
