/**
 * The known name a misspelt one was probably meant to be: the same name in another case or
 * with a qualifier (`AuthzedAction.READ_ONLINE`), the nearest within two edits, or a prefix of it.
 */
export function closest (name: string, known: readonly string[]): string | undefined {
  const bare = name.slice(name.lastIndexOf('.') + 1).toLowerCase()
  if (bare === '') return undefined
  const lower = known.map((candidate) => candidate.toLowerCase())
  const exact = lower.indexOf(bare)
  if (exact >= 0) return known[exact]
  // The nearest misspelling first: READ_ONLNE is READ_ONLINE, although it starts with READ.
  let nearest: string | undefined
  let best = 3
  lower.forEach((candidate, i) => {
    const distance = editDistance(bare, candidate)
    if (distance < best) { best = distance; nearest = known[i] }
  })
  return nearest ?? known[lower.findIndex((candidate) => candidate.startsWith(bare) || bare.startsWith(candidate))]
}

/** ` (did you mean X?)` when a known name is close, else nothing: for the end of an error message. */
export function didYouMean (name: string, known: readonly string[]): string {
  const guess = closest(name, known)
  return guess === undefined ? '' : ` (did you mean ${guess}?)`
}

/** Levenshtein distance; 3 when the lengths alone differ by more than 2 (never "close"). */
export function editDistance (a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
