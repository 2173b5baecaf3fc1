/** Test helper: discover and load every session under paths, as the CLI does. */
import { type ContentMode, discoverSessions, loadSession } from '../../../src/ingest/index.js';
import { type IngestIssue, type Session, SessionSchema } from '../../../src/session/model.js';

export async function loadAll(
  paths: readonly string[],
  content: ContentMode = 'text',
): Promise<{ sessions: Session[]; issues: IngestIssue[] }> {
  const { sources, issues } = await discoverSessions(paths);
  const sessions: Session[] = [];
  for (const source of sources) {
    const session = await loadSession(source, { content });
    const checked = SessionSchema.safeParse(session);
    if (!checked.success) throw new Error(`session ${session.id} breaks the model schema: ${checked.error.message}`);
    sessions.push(session);
  }
  return { sessions, issues: [...issues] };
}

export async function loadOne(path: string, content: ContentMode = 'text'): Promise<Session> {
  const { sessions } = await loadAll([path], content);
  const [session] = sessions;
  if (session === undefined || sessions.length !== 1)
    throw new Error(`expected one session under ${path}, found ${sessions.length}`);
  return session;
}
