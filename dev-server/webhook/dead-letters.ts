import { constants } from 'node:fs';
import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newPlantEvent } from '../../functions/deliver-webhook/new-plant-event.ts';
import { readPrivateFile } from '../data-dir.ts';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';

export const deadLetterFile = (dataDir: string) => join(dataDir, 'webhook', 'dead-letters.jsonl');
/** Lines moved here are sent to the queue again when `npm start` next starts: the redrive. */
export const redriveFile = (dataDir: string) => join(dataDir, 'webhook', 'redrive.jsonl');

/** The dead-letter queue as a file in the data directory, one stream record per line. */
export function openDeadLetters(dataDir: string | undefined, log: (line: string) => void) {
  const file = dataDir === undefined ? undefined : deadLetterFile(dataDir);
  return {
    file,
    async add(messages: readonly ReceivedMessage[]): Promise<void> {
      if (file !== undefined) {
        const flag =
          constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
        const lines = messages.map(({ body }) => `${body}\n`).join('');
        await appendFile(file, lines, { flag, mode: 0o600 });
      }
      for (const { body, receiveCount } of messages) {
        const where = file === undefined ? `: ${body}` : ` in ${file}`;
        log(`webhook: ${webhookIdOf(body)} failed ${receiveCount} attempts; dead letter${where}`);
      }
    },
  };
}

/** Sends `redriveFile` to the queue, then deletes it: at least once, as the AWS redrive. */
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
