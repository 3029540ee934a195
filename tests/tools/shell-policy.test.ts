import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedBeforeEffect } from '../../src/core/effects/refused.ts';
import { checkShellCommand } from '../../src/core/tools/shell-policy.ts';
import { makeWorkspace } from './fixture.ts';

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  ws = await makeWorkspace();
  await mkdir(path.join(ws.dir, 'src'));
  await symlink('/etc', path.join(ws.dir, 'etc-link'));
});
afterAll(() => ws.cleanup());

const check = (command: string, allow?: string[]) =>
  checkShellCommand(command, { workspace: ws.dir, allow, pathEnv: process.env.PATH });

/** Runs the policy and returns the refusal reason; fails the test when the command is accepted. */
function refusal(command: string, allow?: string[]): string {
  try {
    const argv = check(command, allow);
    throw new Error(`expected a refusal, got argv ${JSON.stringify(argv)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(RefusedBeforeEffect);
    return (error as RefusedBeforeEffect).reason;
  }
}

describe('allowed commands become argv', () => {
  it.each([
    ['ls -la src', ['ls', '-la', 'src']],
    ['grep -rn "to do" .', ['grep', '-rn', 'to do', '.']],
    ['git log --oneline -n 3', ['git', 'log', '--oneline', '-n', '3']],
    ['rm -rf src/build', ['rm', '-rf', 'src/build']],
    ['find . -name "*.ts"', ['find', '.', '-name', '*.ts']],
    ['git log --oneline main..feature', ['git', 'log', '--oneline', 'main..feature']],
    ['git --git-dir=.git log', ['git', '--git-dir=.git', 'log']],
    ['git --work-tree . status', ['git', '--work-tree', '.', 'status']],
    ['git clone https://example.com/x.git x', ['git', 'clone', 'https://example.com/x.git', 'x']],
    ['git config user.name kazma', ['git', 'config', 'user.name', 'kazma']],
  ])('%s', (command, argv) => {
    expect(check(command)).toEqual(argv);
  });

  it('accepts a program given as the path PATH finds for it', () => {
    const dir = (process.env.PATH ?? '').split(path.delimiter).find((d) => existsSync(path.join(d, 'ls')));
    const ls = path.join(dir ?? '/nonexistent', 'ls');
    expect(check(`${ls} -a`)).toEqual([ls, '-a']);
    expect(refusal('./ls')).toMatch(/not the system "ls"/);
  });
});

describe('shell syntax is refused', () => {
  it.each([
    ['ls | wc -l', '|'],
    ['ls; pwd', ';'],
    ['ls && pwd', '&&'],
    ['ls || pwd', '||'],
    ['echo hi > out.txt', '>'],
    ['echo hi >> out.txt', '>>'],
    ['cat < in.txt', '<'],
    ['sleep 5 &', '&'],
    ['(ls)', '('],
    ['cat <(ls)', '<('],
    ['echo `id`', 'backticks'],
    ['echo $(id)', '$('],
    ['echo $HOME', '$HOME'],
    ['echo "${USER}"', '$USER'],
    ['ls *.ts', '*.ts'],
    ['echo a?b', 'a?b'],
    ['echo hi\npwd', 'line break'],
    ['ls # list', 'comments'],
  ])('%s', (command, form) => {
    expect(refusal(command)).toContain(form);
  });
});

describe('each dangerous form is refused before approval, naming the form', () => {
  it.each([
    ['find . -exec rm {} +', 'find -exec'],
    ['find . -execdir ls {} +', 'find -execdir'],
    ['find . -ok rm {} ";"', 'find -ok'],
    ['find . -okdir rm {} ";"', 'find -okdir'],
    ['find . -name x -delete', 'find -delete'],
    ['find . -fprint list.txt', 'find -fprint'],
    ['git -c user.name=x status', 'git -c'],
    ['git --config-env=core.pager=P status', 'git --config-env'],
    ['git -C /etc status', 'git -C /etc'],
    ['git -C ../.. status', 'git -C ../..'],
    ['git status --config=core.fsmonitor=evil', 'core.fsmonitor'],
    ['git config core.fsmonitor ./evil', 'core.fsmonitor'],
    ['git config alias.x !id', 'git config alias.x'],
    ['git clone --upload-pack=touch x y', '--upload-pack'],
    ['git rebase --exec id main', '--exec'],
    ['git init --template=tpl', '--template'],
    ['git clone --config core.hooksPath=h url dir', 'git clone -c'],
    ['git grep -Ovim x', 'git grep -O'],
    ['date -s 2020-01-01', 'date -s'],
    ['env', '"env"'],
    ['env FOO=1 ls', '"env"'],
    ['sh -c "ls"', '"sh"'],
    ['bash -c ls', '"bash"'],
    ['zsh', '"zsh"'],
    ['dash', '"dash"'],
    ['fish', '"fish"'],
    ['python3 -c "print(1)"', '"python3"'],
    ['python -V', '"python"'],
    ['node -e 1', '"node"'],
    ['perl -e 1', '"perl"'],
    ['ruby -e 1', '"ruby"'],
    ['php -r 1', '"php"'],
    ['lua -e 1', '"lua"'],
    ['awk "BEGIN{}"', '"awk"'],
    ['xargs rm', '"xargs"'],
    ['sudo ls', '"sudo"'],
    ['su root', '"su"'],
    ['nohup ls', '"nohup"'],
    ['timeout 5 ls', '"timeout"'],
    ['/bin/sh -c ls', '"sh"'],
    ['rm -rf /', 'rm -rf /'],
    ['rm -rf ~', 'rm -rf ~'],
    ['rm -rf .', 'rm -rf .'],
    ['rm -rf ./', 'workspace root'],
    ['rm -rf *', '*'],
    ['rm -rf "*"', 'rm -rf *'],
    ['rm -r ..', 'workspace root'],
    ['rm --no-preserve-root -rf x', '--no-preserve-root'],
    ['mkfs.ext4 /dev/sda1', 'mkfs'],
    ['mkfs -t ext4 /dev/sda1', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda', 'of=/dev/sda'],
    ['chmod -R 777 /', 'chmod -R'],
    ['chown -R nobody /', 'chown -R'],
    ['chmod -R 777 ~', 'chmod -R'],
    ['sort --compress-program=sh data.txt', '--compress-program'],
  ])('%s', (command, form) => {
    expect(refusal(command)).toContain(form);
  });

  it('refuses an executor even when the allow list names it', () => {
    expect(refusal('bash -c ls', ['bash', 'ls'])).toContain('"bash"');
  });

  it('refuses a program that is not allowed, listing what is', () => {
    expect(refusal('curl http://x')).toMatch(/"curl" is not in the shell allow list \(ls, cat/);
  });
});

describe('path arguments stay inside the workspace', () => {
  it.each([
    ['cat /etc/passwd', '/etc/passwd'],
    ['cat ../secret', '../secret'],
    ['cat src/../../secret', 'src/../../secret'],
    ['cat ~/.ssh/id_rsa', '~/.ssh/id_rsa'],
    ['cat etc-link/passwd', 'etc-link/passwd'],
    ['sort --output=/tmp/x data', '/tmp/x'],
    ['sort -o/tmp/x data', '/tmp/x'],
    ['sort -o /tmp/x data', '/tmp/x'],
    ['ls -- /', '/'],
    ['cp notes.txt .git/hooks/pre-commit', '.git'],
  ])('%s', (command, shown) => {
    const reason = refusal(command);
    expect(reason).toContain(shown);
    expect(reason).toMatch(/outside the workspace|\.git directory/);
  });

  it.each(['cat src/../notes.txt', 'ls src/..', 'touch ./src/../x', 'git -C src/.. status', 'sort -o./src/../x data'])(
    '%s: ".." is refused in any path, whatever it resolves to',
    (command) => {
      expect(refusal(command)).toMatch(/"\.\."/);
    },
  );

  it('accepts the workspace by its absolute path and relative paths inside it', () => {
    expect(check(`ls ${ws.dir}/src`)).toEqual(['ls', `${ws.dir}/src`]);
    expect(check('cat ./src/notes.txt')).toEqual(['cat', './src/notes.txt']);
  });
});

describe("no program but git may create, move or copy git's own files", () => {
  it.each([
    'mv d .git',
    'cp -r d .git',
    'cp -r d sub/.git',
    'mkdir .git',
    'touch .git',
    'mv .git d',
    'touch .gitattributes',
    'cp x sub/.gitattributes',
    'mv x .gitmodules',
    'touch .GIT',
    'cp x .Git/config',
  ])('%s', (command) => {
    expect(refusal(command)).toMatch(/git/);
  });

  it('programs that only read may still name them', () => {
    expect(check('grep -rn --exclude-dir=.git TODO .')).toEqual(['grep', '-rn', '--exclude-dir=.git', 'TODO', '.']);
    expect(check('cat .gitattributes')).toEqual(['cat', '.gitattributes']);
    expect(check('ls .git')).toEqual(['ls', '.git']);
  });
});

describe('git is pointed only at the workspace and its own repository', () => {
  it.each([
    ['git --git-dir=notes status', '--git-dir'],
    ['git --git-dir notes status', '--git-dir'],
    ['git --work-tree=src status', '--work-tree'],
    ['git --work-tree /tmp status', '--work-tree'],
    ['git init --separate-git-dir=notes', '--separate-git-dir'],
    ['git clone --separate-git-dir notes url x', '--separate-git-dir'],
    ['git config --rename-section foo alias', 'rename-section'],
    ['git hook run pre-commit', 'git hook'],
    ['git add .git/config', '.git'],
  ])('%s', (command, form) => {
    expect(refusal(command)).toContain(form);
  });

  it.each([
    'remote.origin.uploadpack',
    'remote.a.b.receivepack',
    'remote.origin.vcs',
    'core.alternateRefsCommand',
    'core.sshCommand',
    'core.hooksPath',
    'core.worktree',
    'core.attributesFile',
    'core.gitProxy',
    'core.askPass',
    'core.editor',
    'core.pager',
    'diff.x.command',
    'diff.x.textconv',
    'diff.external',
    'diff.tool',
    'difftool.x.cmd',
    'merge.x.driver',
    'mergetool.x.cmd',
    'filter.x.clean',
    'filter.x.smudge',
    'filter.x.process',
    'gpg.program',
    'gpg.ssh.program',
    'gpg.openpgp.program',
    'gpg.x509.program',
    'gpg.ssh.defaultKeyCommand',
    'trailer.x.command',
    'trailer.x.cmd',
    'sendemail.sendmailcmd',
    'sendemail.smtpServer',
    'sendemail.x.toCmd',
    'credential.helper',
    'credential.https://x.helper',
    'include.path',
    'includeIf.gitdir:x.path',
    'alias.st',
    'pager.log',
    'submodule.s.update',
    'imap.tunnel',
    'uploadpack.packObjectsHook',
    'sequence.editor',
    'web.browser',
    'browser.x.cmd',
    'man.x.cmd',
    'ssh.variant',
    'protocol.ext.allow',
    'safe.directory',
    'init.templateDir',
    'guitool.x.cmd',
    'ALIAS.X',
    'Remote.Origin.UploadPack',
  ])('git config %s', (key) => {
    expect(refusal(`git config ${key} x`)).toContain('git config');
    expect(refusal(`git config --add ${key} x`)).toContain('git config');
    expect(refusal(`git config --file=cfg ${key} x`)).toContain('git config');
  });
});
