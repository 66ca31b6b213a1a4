import { UnavailableError } from '@portcullis/kit';
import type { Capture, ForwardingEvent } from '../contract/capture-records.js';
import { compareStreamIds } from '../contract/stream-id.js';
import type { FeedListener } from './feed-hub.js';
import { formatOnce, formatSseEvent, SSE_HEARTBEAT } from './sse-format.js';

/** Where a subscriber's bytes go: the HTTP response, or a collector in unit tests. */
export interface SseSink {
  /** False when the socket's buffer is full: wait for `drained()` before writing more. */
  write(chunk: string): boolean;
  /** Resolves on `drain`, or when the connection is gone. */
  drained(): Promise<void>;
  end(): void;
}

export interface SseSubscriberOptions {
  sink: SseSink;
  endpointId: string;
  /** Live captures waiting to be written beyond this end the stream: the client resumes from the store. */
  maxPendingEvents: number;
  heartbeatMs: number;
  /** A capture's `request` event, formatted (`formatSseEvent`): the same text for every subscriber that sends it. */
  formatRequest(capture: Capture): string;
  /** One page of stored captures after `afterId`, oldest first; `[]` when there are no more. */
  readAfter(afterId: string): Promise<Capture[]>;
  /** Called once, when the stream has ended for any reason. */
  onClose(): void;
}

const formatForwarding = formatOnce((event: ForwardingEvent) =>
  formatSseEvent({ event: 'forwarding', data: event }),
);

/**
 * One SSE client. It receives live captures from the endpoint's loop into a bounded queue, first replays
 * what the store holds after the client's `Last-Event-ID` (if any), and writes every capture at most once,
 * in id order: whatever the replay and the live feed both carry is written once, since ids only grow.
 */
export class SseSubscriber implements FeedListener {
  private lastSentId = '0-0';
  private readonly queue: Array<Capture | ForwardingEvent> = [];
  private writing = true; // until start(): live captures queue up behind the replay
  private closed = false;
  private started = false;
  /** The last event of a stream that ended before it started. */
  private finalChunk: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly o: SseSubscriberOptions) {}

  /**
   * Writes captures after `afterId`: first those the store holds when `replay` is set, then live ones
   * (queued since the subscription). Nothing at or before `afterId` is written.
   */
  async start(at: { afterId: string; replay: boolean }): Promise<void> {
    this.started = true;
    this.lastSentId = at.afterId;
    if (this.closed) {
      if (this.finalChunk !== undefined) this.o.sink.write(this.finalChunk);
      this.o.sink.end();
      return;
    }
    const replay = at.replay;
    this.heartbeat = setInterval(() => this.write(SSE_HEARTBEAT), this.o.heartbeatMs);
    try {
      while (replay && this.isOpen()) {
        const page = await this.o.readAfter(this.lastSentId);
        if (page.length === 0) break;
        for (const capture of page) await this.send(capture);
      }
    } catch (err: unknown) {
      const message = err instanceof Error ? err.message : 'replay failed';
      this.finish({ event: 'error', data: { error: message, code: UnavailableError.code } });
      return;
    }
    this.writing = false;
    await this.pump();
  }

  onCapture(capture: Capture): void {
    this.enqueue(capture);
  }

  /** Written as `event: forwarding` without an id: it moves no client's `Last-Event-ID`, and is not replayed. */
  onForwarding(event: ForwardingEvent): void {
    this.enqueue(event);
  }

  private enqueue(item: Capture | ForwardingEvent): void {
    if (this.closed) return;
    this.queue.push(item);
    if (this.queue.length > this.o.maxPendingEvents) {
      this.finish({
        event: 'overflow',
        data: {
          error: 'the client fell too far behind; reconnect with Last-Event-ID to resume from the store',
          code: 'SUBSCRIBER_TOO_SLOW',
          lastEventId: this.lastSentId,
        },
      });
      return;
    }
    void this.pump();
  }

  onEnd(reason: 'deleted'): void {
    this.finish({ event: reason, data: { endpointId: this.o.endpointId } });
  }

  /** Ends the stream, after a last event if one is given. Safe to call more than once. */
  finish(last?: { event: string; data: unknown }): void {
    if (this.closed) return;
    const chunk = last && formatSseEvent(last);
    this.close();
    if (!this.started) {
      this.finalChunk = chunk; // written by start(), after the response head
      return;
    }
    if (chunk !== undefined) this.o.sink.write(chunk);
    this.o.sink.end();
  }

  /** The connection is gone (or finishing): stop writing and release the subscription. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.queue.length = 0;
    this.o.onClose();
  }

  private isOpen(): boolean {
    return !this.closed;
  }

  private async pump(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      for (let c = this.queue.shift(); c && !this.closed; c = this.queue.shift()) {
        if ('requestId' in c) await this.sendForwarding(c);
        else await this.send(c);
      }
    } finally {
      this.writing = false;
    }
  }

  private async send(capture: Capture): Promise<void> {
    if (compareStreamIds(capture.id, this.lastSentId) <= 0) return;
    this.lastSentId = capture.id;
    if (!this.write(this.o.formatRequest(capture))) await this.o.sink.drained();
  }

  private async sendForwarding(event: ForwardingEvent): Promise<void> {
    if (!this.write(formatForwarding(event))) await this.o.sink.drained();
  }

  private write(chunk: string): boolean {
    return this.closed || this.o.sink.write(chunk);
  }
}
