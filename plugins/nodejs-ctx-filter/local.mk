# nodejs-ctx-filter: sources of this component class (append to the plugin) and its unit tests.
