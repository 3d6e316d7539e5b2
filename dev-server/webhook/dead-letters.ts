import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newPlantEvent } from '../../functions/deliver-webhook/new-plant-event.ts';
import { readPrivateFile } from '../data-dir.ts';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';

/** Where `npm start` appends each dead letter: one stream record (a message body) per line. */
export const deadLetterFile = (dataDir: string) => join(dataDir, 'webhook', 'dead-letters.jsonl');
/** Lines moved here are sent to the queue again when `npm start` next starts: the redrive. */
export const redriveFile = (dataDir: string) => join(dataDir, 'webhook', 'redrive.jsonl');

/**
 * The dead-letter queue as a developer reads it: a file in the data directory (`file`), each line
 * the stream record the AWS dead-letter queue would hold as a message body, and a log line each;
 * in memory, the log line carries the record itself. `add` is the queue's `deadLetter`.
 */
export function openDeadLetters(dataDir: string | undefined, log: (line: string) => void) {
  // Its directory was made and checked with the data directory (`ensureDataDir`).
  const file = dataDir === undefined ? undefined : deadLetterFile(dataDir);
  return {
    file,
    async add(messages: readonly ReceivedMessage[]): Promise<void> {
      if (file !== undefined) {
        const flags =
          constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
        const handle = await open(file, flags, 0o600);
        try {
          await handle.appendFile(messages.map(({ body }) => `${body}\n`).join(''));
        } finally {
          await handle.close();
        }
      }
      for (const { body, receiveCount } of messages) {
        const where = file === undefined ? `: ${body}` : ` in ${file}`;
        log(`webhook: ${webhookIdOf(body)} failed ${receiveCount} attempts; dead letter${where}`);
      }
    },
  };
}

/**
 * Sends the lines of `redriveFile` to the queue as new messages, then deletes the file: a stop
 * between the two sends them again at the next start, at least once as the AWS redrive is.
 */
export async function redrive(
  dataDir: string | undefined,
  queue: LocalQueue,
  log: (line: string) => void,
): Promise<void> {
  if (dataDir === undefined) return;
  const file = redriveFile(dataDir);
  const text = await readPrivateFile(file);
  if (text === undefined) return;
  const bodies = text.split('\n').filter((line) => line.trim() !== '');
  await queue.send(bodies);
  await rm(file);
  log(`webhook: ${bodies.length} event(s) from ${file} sent to the queue again`);
}

function webhookIdOf(body: string): string {
  try {
    return newPlantEvent(body).webhookId;
  } catch {
    return 'a message that is no new plant';
  }
}
