# instrumentation/nodejs: the Node.js preload recorder and its N-API addon.
