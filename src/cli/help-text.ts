/** The width of every command's help: no line longer, so that it reads in a 90-column terminal. */
export const HELP_WIDTH = 90

/**
 * `words` joined by spaces in lines of at most {@link HELP_WIDTH} characters, each a whole word:
 * the first line starts with `first`, the next ones with `indent`. For the help's generated
 * parts (lists of names, usage lines, summaries), which no one wraps by hand.
 */
export function wrapWords (words: readonly string[], indent: string, first = indent): string {
  const lines: string[] = []
  let line = first
  let started = false
  for (const word of words) {
    if (started && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line)
      line = `${indent}${word}`
    } else {
      line = started ? `${line} ${word}` : `${line}${word}`
    }
    started = true
  }
  lines.push(line)
  return lines.join('\n')
}

/**
 * `usage: feast-authz <command> <arguments>`, wrapped at {@link HELP_WIDTH} with the lines after
 * the first under its first argument. Each argument (`[--config <feature_store.yaml>]`) stays whole.
 */
export function usageLines (command: string, args: readonly string[]): string {
  const first = `usage: feast-authz ${command} `
  return wrapWords(args, ' '.repeat(first.length), first)
}
