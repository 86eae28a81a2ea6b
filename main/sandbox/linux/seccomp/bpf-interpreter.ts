/**
 * A classic-BPF interpreter for the seccomp subset (LD W ABS/IMM, JA, JEQ/JGT/JGE/JSET K,
 * ALU AND K, TAX/TXA, RET K). It runs a program on synthesized `seccomp_data` the way the kernel
 * would, so rules can be checked without a kernel, and rejects anything the kernel would reject:
 * unknown opcodes, out-of-range loads and jumps, falling off the end.
 */
import { bpfOp, type SockFilter } from './bpf-assembler';
import { seccompData } from './seccomp-program';

/** The fields of `struct seccomp_data`; args are u64 as bigint. */
export interface SeccompDataInput {
  nr: number;
  arch: number;
  instructionPointer?: bigint;
  args?: readonly bigint[];
}

/** Lays out `struct seccomp_data` as the kernel does on a little-endian machine. */
export function encodeSeccompData(data: SeccompDataInput): Buffer {
  const buf = Buffer.alloc(seccompData.size);
  buf.writeInt32LE(data.nr | 0, seccompData.nr);
  buf.writeUInt32LE(data.arch >>> 0, seccompData.arch);
  buf.writeBigUInt64LE(data.instructionPointer ?? 0n, 8);
  (data.args ?? []).forEach((arg, i) => {
    buf.writeBigUInt64LE(BigInt.asUintN(64, arg), seccompData.argLow(i));
  });
  return buf;
}

/** Runs `program` on `data` and returns the 32-bit SECCOMP_RET_* value. */
export function runSeccompProgram(program: readonly SockFilter[], data: SeccompDataInput): number {
  const mem = encodeSeccompData(data);
  let a = 0;
  let x = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const insn = program[pc] as SockFilter;
    const jump = (taken: boolean): void => {
      pc += taken ? insn.jt : insn.jf;
    };
    switch (insn.code) {
      case bpfOp.ldAbsW:
        if (insn.k % 4 !== 0 || insn.k + 4 > mem.length) throw new Error(`bad load at ${pc}`);
        a = mem.readUInt32LE(insn.k);
        break;
      case bpfOp.ldImm:
        a = insn.k >>> 0;
        break;
      case bpfOp.ja:
        pc += insn.k;
        break;
      case bpfOp.jeqK:
        jump(a === insn.k);
        break;
      case bpfOp.jgtK:
        jump(a > insn.k);
        break;
      case bpfOp.jgeK:
        jump(a >= insn.k);
        break;
      case bpfOp.jsetK:
        jump((a & insn.k) !== 0);
        break;
      case bpfOp.andK:
        a = (a & insn.k) >>> 0;
        break;
      case bpfOp.tax:
        x = a;
        break;
      case bpfOp.txa:
        a = x;
        break;
      case bpfOp.retK:
        return insn.k >>> 0;
      default:
        throw new Error(`unsupported BPF opcode 0x${insn.code.toString(16)} at ${pc}`);
    }
    if (pc + 1 > program.length) throw new Error(`jump past the end at ${pc}`);
  }
  throw new Error('program fell off the end without RET');
}
