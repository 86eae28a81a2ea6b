/**
 * A tiny classic-BPF assembler for seccomp programs: instructions are appended in order, jumps
 * name forward labels, and `assemble()` resolves them to the u8 offsets of `struct sock_filter`,
 * refusing any conditional jump that is backward, dangling or longer than 255 instructions
 * (`jumpTo` is the unconditional `ja`, whose 32-bit offset reaches anywhere ahead).
 */

/** Opcodes of the classic-BPF subset used here (linux/bpf_common.h). */
export const bpfOp = {
  /** BPF_LD | BPF_W | BPF_ABS: A = u32 at offset k of seccomp_data. */
  ldAbsW: 0x20,
  /** BPF_LD | BPF_W | BPF_IMM: A = k. */
  ldImm: 0x00,
  /** BPF_JMP | BPF_JA: pc += k. */
  ja: 0x05,
  /** BPF_JMP | BPF_JEQ | BPF_K. */
  jeqK: 0x15,
  /** BPF_JMP | BPF_JGT | BPF_K. */
  jgtK: 0x25,
  /** BPF_JMP | BPF_JGE | BPF_K. */
  jgeK: 0x35,
  /** BPF_JMP | BPF_JSET | BPF_K: jump if (A & k) != 0. */
  jsetK: 0x45,
  /** BPF_ALU | BPF_AND | BPF_K. */
  andK: 0x54,
  /** BPF_RET | BPF_K. */
  retK: 0x06,
  /** BPF_MISC | BPF_TAX. */
  tax: 0x07,
  /** BPF_MISC | BPF_TXA. */
  txa: 0x87,
} as const;

/** One `struct sock_filter`. */
export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The kernel's limit on a classic-BPF program (BPF_MAXINSNS). */
export const bpfMaxInstructions = 4096;

/** Size of one `struct sock_filter` in bytes. */
export const sockFilterSize = 8;

/** A jump target: a label defined later, or `next` for the following instruction. */
export type JumpTarget = string;
const next = 'next';

interface Pending {
  code: number;
  k: number;
  jt?: JumpTarget;
  jf?: JumpTarget;
  /** For `ja`: the label whose distance becomes k (32 bits, so any forward distance). */
  to?: JumpTarget;
}

export class BpfAssembler {
  readonly #code: Pending[] = [];
  readonly #labels = new Map<string, number>();

  /** Defines `name` at the next instruction. */
  label(name: string): this {
    if (name === next || this.#labels.has(name)) throw new Error(`label defined twice: ${name}`);
    this.#labels.set(name, this.#code.length);
    return this;
  }

  /** A = 32-bit word at `offset` of seccomp_data. */
  loadWord(offset: number): this {
    return this.#push({ code: bpfOp.ldAbsW, k: offset });
  }

  /** Jump to `jt` if A == k, else to `jf`. */
  jumpIfEqual(k: number, jt: JumpTarget, jf: JumpTarget = next): this {
    return this.#push({ code: bpfOp.jeqK, k, jt, jf });
  }

  /** Jump to `jt` if (A & mask) != 0, else to `jf`. */
  jumpIfAnyBit(mask: number, jt: JumpTarget, jf: JumpTarget = next): this {
    return this.#push({ code: bpfOp.jsetK, k: mask, jt, jf });
  }

  /** Jump to `jt` if A >= k (unsigned), else to `jf`. */
  jumpIfAtLeast(k: number, jt: JumpTarget, jf: JumpTarget = next): this {
    return this.#push({ code: bpfOp.jgeK, k, jt, jf });
  }

  /** Jump to `target` unconditionally, however far ahead it is. */
  jumpTo(target: JumpTarget): this {
    return this.#push({ code: bpfOp.ja, k: 0, to: target });
  }

  /** Return `action` (a SECCOMP_RET_* value). */
  ret(action: number): this {
    return this.#push({ code: bpfOp.retK, k: action });
  }

  /** Resolves labels; throws if a jump is backward, unknown or farther than 255. */
  instructions(): SockFilter[] {
    return this.#code.map((insn, index) => ({
      code: insn.code,
      k: insn.to === undefined ? insn.k : this.#distance(index, insn.to),
      jt: insn.jt === undefined ? 0 : this.#offset(index, insn.jt),
      jf: insn.jf === undefined ? 0 : this.#offset(index, insn.jf),
    }));
  }

  /** The program as the raw little-endian `struct sock_filter[]` bytes bwrap reads. */
  assemble(): Buffer {
    const insns = this.instructions();
    if (insns.length === 0 || insns.length > bpfMaxInstructions) {
      throw new Error(`seccomp program has ${insns.length} instructions`);
    }
    return encodeSockFilters(insns);
  }

  #distance(from: number, target: JumpTarget): number {
    const at = target === next ? from + 1 : this.#labels.get(target);
    if (at === undefined) throw new Error(`unknown label: ${target}`);
    const offset = at - from - 1;
    if (offset < 0) throw new Error(`jump from ${from} to ${target} does not fit: backward`);
    return offset;
  }

  #offset(from: number, target: JumpTarget): number {
    const offset = this.#distance(from, target);
    if (offset > 255) {
      throw new Error(`jump from ${from} to ${target} does not fit in u8 (${offset})`);
    }
    return offset;
  }

  #push(insn: Pending): this {
    if (!Number.isInteger(insn.k) || insn.k < 0 || insn.k > 0xffffffff) {
      throw new Error(`BPF constant out of u32 range: ${insn.k}`);
    }
    this.#code.push(insn);
    return this;
  }
}

/** Encodes instructions as `struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}`, little-endian. */
export function encodeSockFilters(insns: readonly SockFilter[]): Buffer {
  const buf = Buffer.alloc(insns.length * sockFilterSize);
  insns.forEach((insn, i) => {
    const at = i * sockFilterSize;
    buf.writeUInt16LE(insn.code, at);
    buf.writeUInt8(insn.jt, at + 2);
    buf.writeUInt8(insn.jf, at + 3);
    buf.writeUInt32LE(insn.k, at + 4);
  });
  return buf;
}

/** Decodes raw `struct sock_filter[]` bytes. */
export function decodeSockFilters(buf: Buffer): SockFilter[] {
  if (buf.length % sockFilterSize !== 0) throw new Error('not a whole number of sock_filter');
  const insns: SockFilter[] = [];
  for (let at = 0; at < buf.length; at += sockFilterSize) {
    insns.push({
      code: buf.readUInt16LE(at),
      jt: buf.readUInt8(at + 2),
      jf: buf.readUInt8(at + 3),
      k: buf.readUInt32LE(at + 4),
    });
  }
  return insns;
}
