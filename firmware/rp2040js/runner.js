// mcuroof's rp2040js runner: an emulated Raspberry Pi Pico (RP2040, core 0) running a firmware ELF,
// its UART0 on this process's stdin and stdout (links/rp2040js.py gives them a pty).
//   node runner.js RP2040JS_MODULE_DIR FIRMWARE.elf
// Time is the emulator's: every instruction advances the clock by its Cortex-M0+ cycles at 125 MHz
// (TIMER and SysTick read that clock), so the firmware's ticks_us count cycles / 125, never host time.
// There is no bootrom and no boot2: the ELF's segments are copied into flash (0x10000000) and SRAM,
// SP and PC are set from the vector table. Input is fed only while UART0's 32-byte RX FIFO has
// room (the emulator drops bytes silently when it is full). A BKPT 0x52 (machine.reset(), a fault)
// is a reset: a new RP2040 with the image loaded again. The runner exits when stdin closes.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [moduleDir, elfPath] = process.argv.slice(2);
if (!moduleDir || !elfPath) {
  process.stderr.write('usage: node runner.js RP2040JS_MODULE_DIR FIRMWARE.elf\n');
  process.exit(2);
}
const { RP2040 } = await import(pathToFileURL(path.join(moduleDir, 'dist', 'esm', 'index.js')).href);

const FLASH = 0x10000000;
const SRAM = 0x20000000;
const CYCLE_NS = 8; // 125 MHz, the emulator's fixed clock
const BATCH = 100000; // instructions between looks at the host's input and output
const FEED_EVERY = 64; // instructions between looks at the RX FIFO while input waits
const RESET_BKPT = 0x52;

// the ELF's loadable segments at their load (physical) addresses
function segments(elf) {
  const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  if (v.getUint32(0) !== 0x7f454c46 || elf[4] !== 1) throw new Error(`${elfPath}: not a 32-bit ELF`);
  const phoff = v.getUint32(0x1c, true);
  const phentsize = v.getUint16(0x2a, true);
  const out = [];
  for (let i = 0; i < v.getUint16(0x2c, true); i++) {
    const ph = phoff + i * phentsize;
    const [type, offset, paddr, filesz] = [0, 4, 12, 16].map((o) => v.getUint32(ph + o, true));
    if (type === 1 && filesz) out.push({ paddr, data: elf.subarray(offset, offset + filesz) });
  }
  return out;
}

const image = segments(fs.readFileSync(elfPath));
const pending = []; // host bytes not yet in the FIFO
let mcu = null;
let output = [];
let resetAsked = false;

function boot() {
  mcu = new RP2040(); // its reset fills flash with 0xff: load the image after it
  for (const { paddr, data } of image) {
    if (paddr >= FLASH && paddr + data.length <= FLASH + mcu.flash.length) mcu.flash.set(data, paddr - FLASH);
    else if (paddr >= SRAM && paddr + data.length <= SRAM + mcu.sram.length) mcu.sram.set(data, paddr - SRAM);
    else throw new Error(`${elfPath}: segment at 0x${paddr.toString(16)} is outside flash and SRAM`);
  }
  mcu.core.VTOR = FLASH;
  mcu.core.SP = mcu.flashView.getUint32(0, true);
  mcu.core.PC = mcu.flashView.getUint32(4, true) & ~1;
  mcu.uart[0].onByte = (b) => output.push(b);
  mcu.onBreak = (code) => {
    if (code !== RESET_BKPT) process.stderr.write(`rp2040js: breakpoint ${code} at 0x${mcu.core.PC.toString(16)}: reset\n`);
    resetAsked = true;
  };
}

function feed() {
  const uart = mcu.uart[0];
  while (pending.length && !uart.rxFIFO.full) uart.feedByte(pending.shift());
}

function flush() {
  if (output.length) {
    process.stdout.write(Buffer.from(output));
    output = [];
  }
}

let sleeping = false;
// run BATCH instructions (fewer if the core sleeps with nothing to wake it), then yield to the host
function run() {
  const { core, clock } = mcu;
  for (let i = 0; i < BATCH; i++) {
    if (pending.length && i % FEED_EVERY === 0) feed();
    if (core.waiting) {
      if (pending.length) {
        feed();
        continue;
      }
      if (!clock.nextAlarm) {
        sleeping = true; // asleep until input arrives (no alarm would wake it): no host time spent
        break;
      }
      clock.tick(clock.nanosToNextAlarm);
    } else {
      clock.tick(core.executeInstruction() * CYCLE_NS);
    }
    if (resetAsked) {
      resetAsked = false;
      flush();
      boot();
      break;
    }
  }
  flush();
  if (!sleeping) setImmediate(run);
}

process.stdin.on('data', (chunk) => {
  for (const b of chunk) pending.push(b);
  if (sleeping) {
    sleeping = false;
    setImmediate(run);
  }
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
boot();
run();
