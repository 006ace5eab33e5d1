// @ts-check
/* The endpoints of the team's work: campaigns, contacts, automations, forms, shop, media, webhooks,
 * messages and tokens (re-exported by endpoints.js, which pages import). */
import { api, download, upload } from '../lib/api.js';
import { search, seg } from './query.js';
/** @import { Answer, Body, Ok, Query } from './types' */

// ---------------------------------------------------------------- Campaigns

/** @param {Query<'/campaigns', 'get'>} query @returns {Promise<Answer<Ok<'/campaigns', 'get'>>>} */
export const listCampaigns = (query) => api('GET', '/campaigns' + search(query));
/** @param {Body<'/campaigns', 'post'>} body @returns {Promise<Answer<Ok<'/campaigns', 'post'>>>} */
export const createCampaign = (body) => api('POST', '/campaigns', body);
/**
 * @param {Body<'/campaigns/audience-preview', 'post'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/audience-preview', 'post'>>>}
 */
export const previewAudience = (body) => api('POST', '/campaigns/audience-preview', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}', 'get'>>>} */
export const getCampaign = (id) => api('GET', '/campaigns/' + seg(id));
/**
 * @param {string} id @param {Body<'/campaigns/{campaignId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}', 'patch'>>>}
 */
export const updateCampaign = (id, body) => api('PATCH', '/campaigns/' + seg(id), body);
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}', 'delete'>>>} */
export const deleteCampaign = (id) => api('DELETE', '/campaigns/' + seg(id));
/**
 * @param {string} id @param {Body<'/campaigns/{campaignId}/send', 'post'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/send', 'post'>>>}
 */
export const sendCampaign = (id, body) => api('POST', '/campaigns/' + seg(id) + '/send', body);
/**
 * @param {string} id @param {Body<'/campaigns/{campaignId}/send-test', 'post'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/send-test', 'post'>>>}
 */
export const sendCampaignTest = (id, body) => api('POST', '/campaigns/' + seg(id) + '/send-test', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/cancel-schedule', 'post'>>>} */
export const cancelCampaignSchedule = (id) => api('POST', '/campaigns/' + seg(id) + '/cancel-schedule');
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/cancel-send', 'post'>>>} */
export const cancelCampaignSend = (id) => api('POST', '/campaigns/' + seg(id) + '/cancel-send');
/**
 * @param {string} id @param {Body<'/campaigns/{campaignId}/retry', 'post'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/retry', 'post'>>>}
 */
export const retryCampaign = (id, body) => api('POST', '/campaigns/' + seg(id) + '/retry', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/archive', 'post'>>>} */
export const archiveCampaign = (id) => api('POST', '/campaigns/' + seg(id) + '/archive');
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/unarchive', 'post'>>>} */
export const unarchiveCampaign = (id) => api('POST', '/campaigns/' + seg(id) + '/unarchive');
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/whatsapp/submit', 'post'>>>} */
export const submitCampaignTemplate = (id) => api('POST', '/campaigns/' + seg(id) + '/whatsapp/submit');
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/whatsapp/refresh', 'post'>>>} */
export const refreshCampaignTemplate = (id) => api('POST', '/campaigns/' + seg(id) + '/whatsapp/refresh');
/**
 * @param {string} id @param {Query<'/campaigns/{campaignId}/cards', 'get'>} query
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/cards', 'get'>>>}
 */
export const listCampaignCards = (id, query) => api('GET', '/campaigns/' + seg(id) + '/cards' + search(query));
/**
 * @param {string} id @param {Body<'/campaigns/{campaignId}/cards', 'post'>} body
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/cards', 'post'>>>}
 */
export const decideCampaignCards = (id, body) => api('POST', '/campaigns/' + seg(id) + '/cards', body);
/**
 * @param {string} id @param {Query<'/campaigns/{campaignId}/recipients', 'get'>} query
 * @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/recipients', 'get'>>>}
 */
export const listCampaignRecipients = (id, query) =>
  api('GET', '/campaigns/' + seg(id) + '/recipients' + search(query));
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/stats', 'get'>>>} */
export const getCampaignStats = (id) => api('GET', '/campaigns/' + seg(id) + '/stats');
/** @param {string} id @returns {Promise<Answer<Ok<'/campaigns/{campaignId}/timeline', 'get'>>>} */
export const getCampaignTimeline = (id) => api('GET', '/campaigns/' + seg(id) + '/timeline');

// ---------------------------------------------------------------- Contacts, segments, jobs

/** @param {Query<'/contacts', 'get'>} query @returns {Promise<Answer<Ok<'/contacts', 'get'>>>} */
export const listContacts = (query) => api('GET', '/contacts' + search(query));
/** @param {Query<'/search', 'get'>} query @returns {Promise<Answer<Ok<'/search', 'get'>>>} */
export const searchTeam = (query) => api('GET', '/search' + search(query));
/** @param {Body<'/contacts', 'post'>} body @returns {Promise<Answer<Ok<'/contacts', 'post'>>>} */
export const createContact = (body) => api('POST', '/contacts', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/contacts/{contactId}', 'get'>>>} */
export const getContact = (id) => api('GET', '/contacts/' + seg(id));
/**
 * @param {string} id @param {Body<'/contacts/{contactId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/contacts/{contactId}', 'patch'>>>}
 */
export const updateContact = (id, body) => api('PATCH', '/contacts/' + seg(id), body);
/** @param {Query<'/segments', 'get'>} query @returns {Promise<Answer<Ok<'/segments', 'get'>>>} */
export const listSegments = (query) => api('GET', '/segments' + search(query));
/** @param {Body<'/segments', 'post'>} body @returns {Promise<Answer<Ok<'/segments', 'post'>>>} */
export const createSegment = (body) => api('POST', '/segments', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/segments/{segmentId}', 'delete'>>>} */
export const deleteSegment = (id) => api('DELETE', '/segments/' + seg(id));
/**
 * @param {string} id @param {Query<'/segments/{segmentId}/contacts', 'get'>} query
 * @returns {Promise<Answer<Ok<'/segments/{segmentId}/contacts', 'get'>>>}
 */
export const listSegmentContacts = (id, query) => api('GET', '/segments/' + seg(id) + '/contacts' + search(query));
/** @param {Body<'/jobs', 'post'>} body @returns {Promise<Answer<Ok<'/jobs', 'post'>>>} */
export const startJob = (body) => api('POST', '/jobs', body);
/** @param {Query<'/jobs', 'get'>} query @returns {Promise<Answer<Ok<'/jobs', 'get'>>>} */
export const listJobs = (query) => api('GET', '/jobs' + search(query));
/** @param {string} id @returns {Promise<Answer<Ok<'/jobs/{jobId}', 'get'>>>} */
export const getJob = (id) => api('GET', '/jobs/' + seg(id));

// ---------------------------------------------------------------- Automations

/** @param {Query<'/automations', 'get'>} query @returns {Promise<Answer<Ok<'/automations', 'get'>>>} */
export const listAutomations = (query) => api('GET', '/automations' + search(query));
/** @param {Body<'/automations', 'post'>} body @returns {Promise<Answer<Ok<'/automations', 'post'>>>} */
export const createAutomation = (body) => api('POST', '/automations', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/automations/{automationId}', 'get'>>>} */
export const getAutomation = (id) => api('GET', '/automations/' + seg(id));
/**
 * @param {string} id @param {Body<'/automations/{automationId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/automations/{automationId}', 'patch'>>>}
 */
export const updateAutomation = (id, body) => api('PATCH', '/automations/' + seg(id), body);
/**
 * @param {string} id @param {Body<'/automations/{automationId}/steps', 'put'>} body
 * @returns {Promise<Answer<Ok<'/automations/{automationId}/steps', 'put'>>>}
 */
export const updateAutomationSteps = (id, body) => api('PUT', '/automations/' + seg(id) + '/steps', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/automations/{automationId}/step-counts', 'get'>>>} */
export const getStepCounts = (id) => api('GET', '/automations/' + seg(id) + '/step-counts');
/**
 * @param {string} id @param {Query<'/automations/{automationId}/enrollments', 'get'>} query
 * @returns {Promise<Answer<Ok<'/automations/{automationId}/enrollments', 'get'>>>}
 */
export const listEnrollments = (id, query) => api('GET', '/automations/' + seg(id) + '/enrollments' + search(query));
/**
 * @param {string} id @param {string} enrollmentId
 * @returns {Promise<Answer<Ok<'/automations/{automationId}/enrollments/{enrollmentId}', 'get'>>>}
 */
export const getEnrollment = (id, enrollmentId) =>
  api('GET', '/automations/' + seg(id) + '/enrollments/' + seg(enrollmentId));

// ---------------------------------------------------------------- Forms

/** @param {Query<'/forms', 'get'>} query @returns {Promise<Answer<Ok<'/forms', 'get'>>>} */
export const listForms = (query) => api('GET', '/forms' + search(query));
/** @param {Body<'/forms', 'post'>} body @returns {Promise<Answer<Ok<'/forms', 'post'>>>} */
export const createForm = (body) => api('POST', '/forms', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/forms/{formId}', 'get'>>>} */
export const getForm = (id) => api('GET', '/forms/' + seg(id));
/**
 * @param {string} id @param {Body<'/forms/{formId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/forms/{formId}', 'patch'>>>}
 */
export const updateForm = (id, body) => api('PATCH', '/forms/' + seg(id), body);
/** @param {string} id @returns {Promise<Answer<Ok<'/forms/{formId}', 'delete'>>>} */
export const deleteForm = (id) => api('DELETE', '/forms/' + seg(id));
/**
 * @param {string} id @param {Query<'/forms/{formId}/submissions', 'get'>} query
 * @returns {Promise<Answer<Ok<'/forms/{formId}/submissions', 'get'>>>}
 */
export const listFormSubmissions = (id, query) => api('GET', '/forms/' + seg(id) + '/submissions' + search(query));

// ---------------------------------------------------------------- Shop: products and orders

/** @param {Query<'/products', 'get'>} query @returns {Promise<Answer<Ok<'/products', 'get'>>>} */
export const listProducts = (query) => api('GET', '/products' + search(query));
/** @param {Body<'/products', 'post'>} body @returns {Promise<Answer<Ok<'/products', 'post'>>>} */
export const createProduct = (body) => api('POST', '/products', body);
/**
 * @param {string} id @param {Body<'/products/{productId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/products/{productId}', 'patch'>>>}
 */
export const updateProduct = (id, body) => api('PATCH', '/products/' + seg(id), body);
/** @param {string} id @returns {Promise<Answer<Ok<'/products/{productId}', 'delete'>>>} */
export const deleteProduct = (id) => api('DELETE', '/products/' + seg(id));
/** @param {Query<'/orders', 'get'>} query @returns {Promise<Answer<Ok<'/orders', 'get'>>>} */
export const listOrders = (query) => api('GET', '/orders' + search(query));
/**
 * @param {string} contactId @param {Query<'/contacts/{contactId}/orders', 'get'>} query
 * @returns {Promise<Answer<Ok<'/contacts/{contactId}/orders', 'get'>>>}
 */
export const listContactOrders = (contactId, query) =>
  api('GET', '/contacts/' + seg(contactId) + '/orders' + search(query));

// ---------------------------------------------------------------- Media and artifacts

/** @param {File} file @returns {Promise<Answer<Ok<'/media', 'post'>>>} */
export const uploadMedia = (file) => upload('/media', file);
/** @param {Query<'/media', 'get'>} query @returns {Promise<Answer<Ok<'/media', 'get'>>>} */
export const listMedia = (query) => api('GET', '/media' + search(query));
/** @param {string} id @returns {Promise<Answer<Ok<'/media/{mediaId}', 'delete'>>>} */
export const deleteMedia = (id) => api('DELETE', '/media/' + seg(id));
/** A file's bytes (GET /media/{mediaId}/content): a Blob on 200, else the error envelope. @param {string} id */
export const downloadMedia = (id) => download('/media/' + seg(id) + '/content');
/** @param {string} id @returns {Promise<Answer<Ok<'/artifacts/{artifactId}', 'get'>>>} */
export const getArtifact = (id) => api('GET', '/artifacts/' + seg(id));
/** @param {Query<'/artifacts', 'get'>} query @returns {Promise<Answer<Ok<'/artifacts', 'get'>>>} */
export const listArtifacts = (query) => api('GET', '/artifacts' + search(query));
/** @param {Body<'/artifacts', 'post'>} body @returns {Promise<Answer<Ok<'/artifacts', 'post'>>>} */
export const createArtifact = (body) => api('POST', '/artifacts', body);
/**
 * @param {string} id @param {Body<'/artifacts/{artifactId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/artifacts/{artifactId}', 'patch'>>>}
 */
export const updateArtifact = (id, body) => api('PATCH', '/artifacts/' + seg(id), body);
/** @param {Body<'/artifacts/deliver', 'post'>} body @returns {Promise<Answer<Ok<'/artifacts/deliver', 'post'>>>} */
export const deliverArtifacts = (body) => api('POST', '/artifacts/deliver', body);

// ---------------------------------------------------------------- Webhook endpoints

/** @param {Query<'/webhooks/endpoints', 'get'>} query @returns {Promise<Answer<Ok<'/webhooks/endpoints', 'get'>>>} */
export const listEndpoints = (query) => api('GET', '/webhooks/endpoints' + search(query));
/** @param {Body<'/webhooks/endpoints', 'post'>} body @returns {Promise<Answer<Ok<'/webhooks/endpoints', 'post'>>>} */
export const createEndpoint = (body) => api('POST', '/webhooks/endpoints', body);
/**
 * @param {string} id @param {Body<'/webhooks/endpoints/{endpointId}', 'patch'>} body
 * @returns {Promise<Answer<Ok<'/webhooks/endpoints/{endpointId}', 'patch'>>>}
 */
export const updateEndpoint = (id, body) => api('PATCH', '/webhooks/endpoints/' + seg(id), body);
/** @param {string} id @returns {Promise<Answer<Ok<'/webhooks/endpoints/{endpointId}', 'delete'>>>} */
export const deleteEndpoint = (id) => api('DELETE', '/webhooks/endpoints/' + seg(id));
/**
 * @param {string} id @param {Query<'/webhooks/endpoints/{endpointId}/deliveries', 'get'>} query
 * @returns {Promise<Answer<Ok<'/webhooks/endpoints/{endpointId}/deliveries', 'get'>>>}
 */
export const listDeliveries = (id, query) =>
  api('GET', '/webhooks/endpoints/' + seg(id) + '/deliveries' + search(query));

// ---------------------------------------------------------------- Messages and API tokens

/** Delivery records (an artifact's: `artifactId`). @param {Query<'/deliveries', 'get'>} query @returns {Promise<Answer<Ok<'/deliveries', 'get'>>>} */
export const listDeliveryRecords = (query) => api('GET', '/deliveries' + search(query));

/** @param {Query<'/messages', 'get'>} query @returns {Promise<Answer<Ok<'/messages', 'get'>>>} */
export const listMessages = (query) => api('GET', '/messages' + search(query));
/** @param {Query<'/outbox', 'get'>} query @returns {Promise<Answer<Ok<'/outbox', 'get'>>>} */
export const listOutbox = (query) => api('GET', '/outbox' + search(query));
/** @param {Query<'/api-tokens', 'get'>} query @returns {Promise<Answer<Ok<'/api-tokens', 'get'>>>} */
export const listApiTokens = (query) => api('GET', '/api-tokens' + search(query));
/** @param {Body<'/api-tokens', 'post'>} body @returns {Promise<Answer<Ok<'/api-tokens', 'post'>>>} */
export const createApiToken = (body) => api('POST', '/api-tokens', body);
/** @param {string} id @returns {Promise<Answer<Ok<'/api-tokens/{tokenId}', 'delete'>>>} */
export const revokeApiToken = (id) => api('DELETE', '/api-tokens/' + seg(id));
