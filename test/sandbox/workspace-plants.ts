/**
 * What a server that may write a repository's folder tries first, from inside it: a hook, a
 * command git runs on every status, a config appended, and git pointed at a repository of its
 * own under `rw`. Each step echoes a word when it went through.
 */
export const plantInRepository = (rw: string) =>
  `echo 'touch /tmp/owned' > .git/hooks/pre-commit && echo HOOKED; ` +
  `git config core.fsmonitor 'touch /tmp/owned' && echo CONFIGURED; ` +
  `printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config && echo APPENDED; ` +
  `echo ${rw}/evil.git > .git/commondir && echo REDIRECTED; `;
