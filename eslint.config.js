import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import pluginQuery from '@tanstack/eslint-plugin-query'
import globals from 'globals'
import importX from 'eslint-plugin-import-x'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import { readdirSync } from 'node:fs'

/**
 * The dashboard's layers (docs/architecture.md): code flows one way, `components/ui`, `lib`, `api`,
 * `domain`, `config` → `features` → `app` → `boot`. A feature does not import another feature; the
 * page in `app/routes` composes them. `boot` (the entry, hydration, the build's prerendering) starts
 * the app and may import any layer; nothing imports it. Zones as bulletproof-react's apps/react-vite
 * sets them.
 */
const FEATURES = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
const LOWER = ['./src/api', './src/domain', './src/lib', './src/components', './src/config']
const boundaries = [
  ...FEATURES.map((f) => ({
    target: `./src/features/${f}`,
    from: './src/features',
    except: [`./${f}`],
    message:
      'A feature does not import another feature: move the shared piece to src/api, src/domain or src/lib, or compose the two in src/app.',
  })),
  { target: './src/features', from: './src/app', message: 'Features do not import the app: the app composes them.' },
  {
    target: ['./src/app', './src/features', ...LOWER],
    from: './src/boot',
    message: 'Nothing imports the start-up code (src/boot): it starts the app, the app does not know how it was started.',
  },
  ...LOWER.map((target) => ({
    target,
    from: ['./src/features', './src/app'],
    message: 'The shared layers (api, domain, lib, components, config) know nothing of features or the app.',
  })),
]

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', '.data', '.bench-data'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
    },
  },
  { files: ['src/**/*.tsx'], ...jsxA11y.flatConfigs.recommended },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: boundaries }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // tests and their helpers render what the app composes (a feature inside the shell, a form with the
  // service's errors): they may reach across; the code they test may not
  { files: ['src/**/*.test.{ts,tsx}', 'src/testing/**'], rules: { 'import-x/no-restricted-paths': 'off' } },
  ...pluginQuery.configs['flat/recommended'],
  {
    files: ['server/**/*.ts', 'scripts/**/*.{js,mjs}', 'e2e/**/*.ts', '*.config.{js,ts}', 'build/**/*.ts', '.ci/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
)
