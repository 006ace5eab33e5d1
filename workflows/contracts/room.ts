import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ErrorBody } from './errorBody';
import type { WorkflowStart } from './start';

/**
 * The contract of a room (`room-<roomId>`), which runs its turns itself, one at a time. Turns
 * that rooms started as children (`turn-<turnId>`) before that keep their own contract below.
 * Payloads carry ids only: the transcript, the tool arguments and the model's words stay in Postgres.
 */

export const roomWorkflowName = 'roomWorkflow';
export const turnWorkflowName = 'turnWorkflow';

export const roomWorkflowId = (roomId: string) => `room-${roomId}`;
export const turnWorkflowId = (turnId: string) => `turn-${turnId}`;

export interface RoomArgs {
  roomId: string;
  teamSlug: string;
  /** Turns accepted by an earlier run and not yet started (carried over by continue-as-new). */
  queued?: string[];
  /** Turns a run takes before it continues as new (50; tests pass a small one). */
  turnsPerRun?: number;
}

/** The message a user posted, already in the transcript: its turn, `<roomId>:<message seq>`. */
export interface QueueTurn {
  turnId: string;
}

/** Queues a turn (sent by Update-with-Start, with the turn id as the update id, so a retry queues nothing twice). */
export const queueTurn = defineUpdate<{ position: number }, [QueueTurn]>('queueTurn');

export interface RoomProgress {
  /** The turn running now. */
  current: string | null;
  /** Where the current turn is (null between turns). */
  turn: TurnProgress | null;
  queued: string[];
  turnsRun: number;
}
export const roomProgress = defineQuery<RoomProgress>('progress');

/** An operator's way out of a stuck turn: the turn ends `failed` (`turn_cancelled`) and the room takes the next one. */
export const cancelTurn = defineSignal<[{ turnId: string }]>('cancelTurn');

export type RoomWorkflow = (args: RoomArgs) => Promise<void>;

/** Started by Update-with-Start (services/rooms/messages.ts): a room that runs takes the turn, one that does not starts. */
export const roomStart = {
  name: roomWorkflowName,
  id: (args) => roomWorkflowId(args.roomId),
  searchAttributes: (args) => ({ JobType: 'agent.room', BusinessId: args.roomId }),
  idConflictPolicy: 'USE_EXISTING',
} as const satisfies WorkflowStart<RoomWorkflow>;

export interface TurnArgs {
  turnId: string;
  roomId: string;
  teamSlug: string;
}

export interface TurnProgress {
  status: 'running' | 'waiting_approval' | 'completed' | 'failed';
  /** The model call the turn is at (1-based). */
  step: number;
  /** The tool running or waiting for approval now. */
  toolInFlight: string | null;
  /** The approval a person is asked for (`wx_…`), while the turn waits. */
  executionId: string | null;
  promptTokens: number;
  completionTokens: number;
}
export const turnProgress = defineQuery<TurnProgress>('progress');

export interface TurnResult {
  status: 'completed' | 'failed';
  steps: number;
}
export type TurnWorkflow = (args: TurnArgs) => Promise<TurnResult>;

/** What one model call asked for; `approval` names the warp a person must approve first. */
export interface PlannedToolCall {
  id: string;
  name: string;
  approval: string | null;
}

export interface ModelStepResult {
  toolCalls: PlannedToolCall[];
  promptTokens: number;
  completionTokens: number;
}

/** What the turn starts the warp-execution child with. */
export interface OpenedApproval {
  executionId: string;
  warp: string;
  approvalTimeoutMs: number;
  summary: string;
}

export type TurnOutcome = { status: 'completed' } | { status: 'failed'; error: ErrorBody };

export interface RoomActivities {
  /** One model call (the first marks the turn running), streamed into the room's events; records the reply and the tool calls it asked for. */
  modelStep(turnId: string, step: number, allowTools: boolean): Promise<ModelStepResult>;
  /** Runs one tool call once: its platform writes commit with its ledger row and its result message. */
  runToolCall(toolCallId: string): Promise<void>;
  /**
   * Opens the warp execution a sensitive call waits on; null when the
   * arguments are not valid (nothing to approve: the call is settled as failed).
   */
  openToolApproval(toolCallId: string): Promise<OpenedApproval | null>;
  /** Asks for the approval on the stream (`approval.requested`), once its workflow waits. */
  announceToolApproval(toolCallId: string): Promise<void>;
  /** Turns the settled execution (succeeded, failed, declined, expired) into the call's result. */
  settleToolApproval(toolCallId: string): Promise<void>;
  finishTurn(turnId: string, outcome: TurnOutcome): Promise<void>;
}
