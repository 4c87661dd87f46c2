// @ts-check
/**
 * A TypeDoc plugin: a package's main entry point (`exports` "."), which TypeDoc names "", becomes the package's
 * own page, so `@mqkit/core` lists what `import … from '@mqkit/core'` gives, with `testing` and `internal` as its
 * modules. Without it the main entry is an unnamed module beside them.
 */
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const { project } = context;
      for (const module of project.getChildrenByKind(ReflectionKind.Module)) {
        if (module.name === '') project.mergeReflections(module, project);
      }
    },
    // Before TypeDoc's own @mergeModuleWith handling (priority 10000), as that tag would do it.
    20_000,
  );
}
