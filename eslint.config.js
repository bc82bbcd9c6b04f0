import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', '.tmp/**', 'bench/results/**'] }),
  {
    rules: {
      // Long lines are hard to review side by side; strings, templates and regexes may run on.
      // `void promise` marks a promise deliberately not awaited (its errors are handled elsewhere).
      'no-void': ['error', { allowAsStatement: true }],
      '@stylistic/max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }]
    }
  },
  {
    // Type tests assert with expressions that only the type checker reads.
    files: ['test/types/**'],
    rules: {
      'no-void': 'off',
      'no-sequences': 'off',
      'no-new': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unused-vars': 'off'
    }
  }
]
