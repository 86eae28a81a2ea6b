import { describe, expect, it } from 'vitest';
import { BpfAssembler, bpfOp, decodeSockFilters, encodeSockFilters } from './bpf-assembler';
import { runSeccompProgram } from './bpf-interpreter';

describe('BpfAssembler', () => {
  it('resolves forward labels to jt/jf offsets and encodes little-endian sock_filter', () => {
    const asm = new BpfAssembler()
      .loadWord(0)
      .jumpIfEqual(7, 'seven', 'other')
      .label('other')
      .ret(1)
      .label('seven')
      .ret(2);
    expect(asm.instructions()).toEqual([
      { code: bpfOp.ldAbsW, jt: 0, jf: 0, k: 0 },
      { code: bpfOp.jeqK, jt: 1, jf: 0, k: 7 },
      { code: bpfOp.retK, jt: 0, jf: 0, k: 1 },
      { code: bpfOp.retK, jt: 0, jf: 0, k: 2 },
    ]);
    const bytes = asm.assemble();
    expect(bytes.subarray(8, 16)).toEqual(Buffer.from([0x15, 0, 1, 0, 7, 0, 0, 0]));
    expect(decodeSockFilters(bytes)).toEqual(asm.instructions());
    const prog = asm.instructions();
    expect(runSeccompProgram(prog, { nr: 7, arch: 0 })).toBe(2);
    expect(runSeccompProgram(prog, { nr: 8, arch: 0 })).toBe(1);
  });

  it('refuses jumps that are too long, backward or to unknown labels', () => {
    const far = new BpfAssembler().loadWord(0).jumpIfEqual(1, 'end');
    for (let i = 0; i < 256; i++) far.ret(0);
    far.label('end').ret(1);
    expect(() => far.instructions()).toThrow(/does not fit in u8/);
    const back = new BpfAssembler().label('top').loadWord(0).jumpIfEqual(1, 'top').ret(0);
    expect(() => back.instructions()).toThrow(/does not fit/);
    expect(() => new BpfAssembler().jumpIfEqual(1, 'nowhere').instructions()).toThrow(/unknown/);
    expect(() => new BpfAssembler().label('a').label('a')).toThrow(/twice/);
    expect(() => new BpfAssembler().ret(-1)).toThrow(/u32/);
    expect(() => new BpfAssembler().assemble()).toThrow(/0 instructions/);
  });
});

describe('runSeccompProgram', () => {
  it('rejects what the kernel would reject', () => {
    const noRet = [{ code: bpfOp.ldAbsW, jt: 0, jf: 0, k: 0 }];
    expect(() => runSeccompProgram(noRet, { nr: 0, arch: 0 })).toThrow(/fell off/);
    const badLoad = [{ code: bpfOp.ldAbsW, jt: 0, jf: 0, k: 64 }];
    expect(() => runSeccompProgram(badLoad, { nr: 0, arch: 0 })).toThrow(/bad load/);
    const badOp = [{ code: 0x61, jt: 0, jf: 0, k: 0 }];
    expect(() => runSeccompProgram(badOp, { nr: 0, arch: 0 })).toThrow(/opcode/);
  });

  it('runs JSET, AND, JGT/JGE, TAX/TXA and LD IMM as the kernel does', () => {
    const prog = decodeSockFilters(
      encodeSockFilters([
        { code: bpfOp.ldAbsW, jt: 0, jf: 0, k: 16 }, // A = args[0] low
        { code: bpfOp.tax, jt: 0, jf: 0, k: 0 },
        { code: bpfOp.andK, jt: 0, jf: 0, k: 0xf0 },
        { code: bpfOp.jsetK, jt: 0, jf: 5, k: 0x80 },
        { code: bpfOp.txa, jt: 0, jf: 0, k: 0 },
        { code: bpfOp.jgtK, jt: 0, jf: 1, k: 0x100 },
        { code: bpfOp.retK, jt: 0, jf: 0, k: 3 },
        { code: bpfOp.jgeK, jt: 0, jf: 1, k: 0x80 },
        { code: bpfOp.retK, jt: 0, jf: 0, k: 2 },
        { code: bpfOp.ldImm, jt: 0, jf: 0, k: 9 },
        { code: bpfOp.retK, jt: 0, jf: 0, k: 1 },
      ]),
    );
    const run = (v: bigint) => runSeccompProgram(prog, { nr: 0, arch: 0, args: [v] });
    expect(run(0x180n)).toBe(3);
    expect(run(0x80n)).toBe(2);
    expect(run(0x1n)).toBe(1);
  });
});
