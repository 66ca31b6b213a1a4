#!/usr/bin/env node
// The `ratelimit-client` command: registers tsx so the TypeScript sources run as they are, then hands over.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/ratelimit-client.ts');
