// A small leveled logger writing one line per event to stderr (stdout carries
// only the start-up JSON line). LOG_LEVEL=debug|info|warn|error (default info).

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

const threshold = LEVELS[(process.env.LOG_LEVEL ?? "info").toLowerCase() as Level] ?? LEVELS.info;

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  let line = `${new Date().toISOString()} ${level.toUpperCase()} ${msg}`;
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined) continue;
    line += ` ${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`;
  }
  process.stderr.write(line + "\n");
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};

/** errText is an error's message, for logs. */
export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
