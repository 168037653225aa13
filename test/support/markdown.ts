/** What the docs tests read of Markdown: GitHub's heading anchors, table rows and links. */

/** GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of every heading of a Markdown text (code blocks' `#` lines are not headings). */
export function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, heading]) => headingAnchor(heading)),
  );
}

/** The text with its fenced code blocks blanked out. */
export function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** The cells of every table row (header and separator rows included), outside code blocks. */
export function tableRows(markdown: string): string[][] {
  return withoutCodeBlocks(markdown)
    .split('\n')
    .filter((line) => /^\s*\|.*\|\s*$/.test(line))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        // A pipe inside a cell is written `\|`.
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The part of a Markdown text under its `## title` heading, up to the next heading of that level or above, without code blocks. */
export function section(markdown: string, title: string): string {
  const lines = withoutCodeBlocks(markdown).split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${title}`);
  if (start < 0) throw new Error(`No section "## ${title}"`);
  const end = lines.findIndex((line, index) => index > start && /^#{1,2}\s/.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}
