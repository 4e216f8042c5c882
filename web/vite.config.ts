// Builds the dashboard (web/) into dist/web, which the service serves at `/`
// (src/dashboard/serveDashboard.ts). Run by npm's prepare (so npm ci builds it) and npm run build.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The Content-Security-Policy allows no inline script or style: keep every asset a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
});
