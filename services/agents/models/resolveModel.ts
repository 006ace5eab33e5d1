import type { ChatModel } from './chatModel';
import { offlineModel } from './offline';
import { openAiCompatibleModel } from './openaiCompatible';

/** An agent's own model settings (its row, and its key read from the agent's secrets). */
export interface AgentModelSettings {
  agentBaseUrl: string | null;
  agentModel: string | null;
  agentApiKey: string | null;
}

/** The platform's model (`config.ts`: AI_BASE_URL, AI_API_KEY, AI_MODEL; MODEL_FIRST_TOKEN_SECONDS and MODEL_STALL_SECONDS for every model). */
export interface PlatformModelConfig {
  AI_BASE_URL?: string;
  AI_API_KEY?: string;
  AI_MODEL: string;
  MODEL_FIRST_TOKEN_SECONDS?: number;
  MODEL_STALL_SECONDS?: number;
}

const sameServer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * The model an agent converses with: its own server when it has one, else the platform's (with
 * the agent's model name, if it chose one), else the offline model. Pure: the caller reads the
 * agent row and its secret.
 *
 * The platform's key goes only to the platform's server: an agent that points at another URL
 * uses its own key or none, so no agent setting can send the operator's key elsewhere.
 */
export function modelFor(settings: AgentModelSettings, config: PlatformModelConfig): ChatModel {
  const ms = (seconds: number | undefined) => (seconds !== undefined ? seconds * 1000 : undefined);
  const limits = { firstTokenMs: ms(config.MODEL_FIRST_TOKEN_SECONDS), stallMs: ms(config.MODEL_STALL_SECONDS) };
  const agentBaseUrl = settings.agentBaseUrl?.trim() || null;
  const agentModel = settings.agentModel?.trim() || null;
  if (agentBaseUrl) {
    const platformKey =
      config.AI_BASE_URL && sameServer(agentBaseUrl, config.AI_BASE_URL) ? config.AI_API_KEY : undefined;
    return openAiCompatibleModel({
      baseUrl: agentBaseUrl,
      apiKey: settings.agentApiKey ?? platformKey,
      model: agentModel ?? config.AI_MODEL,
      ...limits,
    });
  }
  if (config.AI_BASE_URL) {
    return openAiCompatibleModel({
      baseUrl: config.AI_BASE_URL,
      apiKey: config.AI_API_KEY,
      model: agentModel ?? config.AI_MODEL,
      ...limits,
    });
  }
  return offlineModel();
}
