# instrumentation: LTTng-UST providers and the deepspan span library.
