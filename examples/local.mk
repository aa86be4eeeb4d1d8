# examples: instrumented demo applications.
