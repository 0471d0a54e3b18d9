import { start } from './app.js';

// The page's entry: app.js only exports, so its modules can be loaded (and tested) without a page.
start(document);
