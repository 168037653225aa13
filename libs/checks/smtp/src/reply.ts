/** One complete SMTP reply, multi-line replies joined. */
export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code (`5.1.1`), when the server gave one. */
  enhancedCode: string | null;
  /** The text of every line, without the code and enhanced code, joined by spaces. */
  message: string;
  lines: string[];
}

const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})(?:\s+|$)/;
/** qmail and its kin put the enhanced code after a '#', at the start or in a closing "(#5.1.1 - chkuser)". */
const HASH_ENHANCED = /(?:^|\(|\s)#([245])\.(\d{1,3})\.(\d{1,3})\b/;

/** A reply on one line (code and text), for logs and operators. */
export function replyLine(reply: SmtpReply): string {
  return `${reply.code} ${reply.message}`;
}

export function buildReply(lines: string[]): SmtpReply {
  const code = Number(lines[0].slice(0, 3));
  let enhancedCode: string | null = null;
  const texts = lines.map((line) => {
    let text = line.slice(4);
    const enhanced = ENHANCED.exec(text);
    if (enhanced && Number(enhanced[1]) === Math.floor(code / 100)) {
      enhancedCode ??= `${enhanced[1]}.${enhanced[2]}.${enhanced[3]}`;
      text = text.slice(enhanced[0].length);
    }
    return text.trim();
  });
  const message = texts.filter(Boolean).join(' ');
  const hashed = enhancedCode ? null : HASH_ENHANCED.exec(message);
  if (hashed && Number(hashed[1]) === Math.floor(code / 100)) enhancedCode = `${hashed[1]}.${hashed[2]}.${hashed[3]}`;
  return { code, enhancedCode, message, lines };
}

/**
 * Accumulates received text into replies. A line `250-…` continues, `250 …` (or a bare code) ends
 * the reply; anything that does not start with three digits is a protocol error.
 */
export class ReplyParser {
  private buffer = '';
  private pending: string[] = [];

  /** Returns the replies completed by this chunk; throws on a malformed line. */
  push(chunk: string): SmtpReply[] {
    this.buffer += chunk;
    const done: SmtpReply[] = [];
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (!/^[2-5]\d\d([ -]|$)/.test(line))
        throw new Error(`malformed SMTP reply line: ${JSON.stringify(line.slice(0, 80))}`);
      if (this.pending.length > 0 && line.slice(0, 3) !== this.pending[0].slice(0, 3)) {
        throw new Error('SMTP reply lines disagree on the code');
      }
      this.pending.push(line);
      if (line[3] !== '-') {
        done.push(buildReply(this.pending));
        this.pending = [];
      }
    }
    if (this.buffer.length > 8192) throw new Error('SMTP reply line too long');
    return done;
  }

  /** Part of a reply has arrived and waits for the rest. */
  get partial(): boolean {
    return this.buffer.length > 0 || this.pending.length > 0;
  }

  /** Drops anything unread: used after STARTTLS, where plaintext that follows must not be trusted. */
  reset(): void {
    this.buffer = '';
    this.pending = [];
  }
}
