// ESLint flat config: typescript-eslint's recommended rules over all sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      '.zuno/',
      'prisma/generated/',
      'coverage/',
      'dist/',
      'dist.*.tmp/',
      'dist.*.old/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The CLI reaches activities only through their public entries,
    // activities/<area>/index.ts (issue 27): their other modules may change
    // shape freely; pure helpers the CLI shares live in core/.
    files: ['client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)activities/(?![a-z-]+/index\\.js$)',
              message:
                'import activities through their public entry (activities/<area>/index.ts), or move a pure helper to core/',
            },
          ],
        },
      ],
    },
  },
  {
    // Startup speed: building the commander program loads only commander and
    // core; every action imports its command module with `await import()`
    // (see buildProgram in client/cli.ts). Type-only imports are fine, and so is
    // client/version.ts (node:fs + the install root, what `--version` needs).
    files: ['client/cli.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./*', '!./version.js', '../activities/**', '../worker/**'],
              allowTypeImports: true,
              message: 'import command modules inside the action: `const { x } = await import(...)`',
            },
            {
              group: ['@temporalio/*', '@prisma/*', 'undici', 'pg', 'better-sqlite3', 'execa', 'yaml', 'zod'],
              allowTypeImports: true,
              message: 'heavy dependency: import it inside the action that needs it',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code must stay deterministic (DESIGN.md §4).
    files: ['workflows/**/*.ts', 'core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'child_process'],
              message: 'no Node built-ins in deterministic code',
            },
            {
              group: ['**/activities/**', '**/client/**', '**/worker/**', '@prisma/*'],
              message: 'workflows/core may not import I/O code',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'use Temporal uuid4()/deterministic ids in workflow code' },
      ],
    },
  },
  {
    // Issue 27: product functions stay short enough to read (a short body over named helpers);
    // the CLI's command table (client/cli.ts buildProgram) is the one exception, said where it is.
    files: [
      'core/**/*.ts',
      'workflows/**/*.ts',
      'activities/**/*.ts',
      'worker/**/*.ts',
      'client/**/*.ts',
      'local-provider/**/*.ts',
    ],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
);
