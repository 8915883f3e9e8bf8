// A Raspberry Pi Pico emulated with rp2040js, with the pyramid board's wires at its pins.
//
//   node pico.mjs CONFIG_JSON        (started by firmware/emulator/pico.py)
//
// What it models, and what not:
// - The RP2040 (rp2040js 1.4.1: Cortex-M0+ core, SIO, pads, PWM, PIO, timer, watchdog,
//   USB controller) running the real MicroPython UF2 with the real boot ROM. rp2040js
//   counts cycles per instruction close to, not exactly as, a real chip; flash reads are
//   instant (no XIP cache misses), so code runs a little faster than on a Pico.
// - USB CDC to the host, bridged to a pty whose master is inherited: bytes from the host reach
//   the device only when it has an OUT buffer armed (as USB NAKs until then); bytes from
//   the device go to the pty, and while the pty is full (the host holds the port open and
//   does not read) the device's IN transfers do not complete, as with a Linux host whose
//   cdc-acm tty buffer is full. A reset re-enumerates; the pty stays (udev's by-id link).
// - The switch matrix of hardware/README.md: a reed switch and a diode (anode on the
//   column, cathode on the row) at each crossing. A column reads low while a row joined to
//   it by a closed switch is driven low; otherwise its pad's pull decides (pull-up: high,
//   pull-down: low, both: bus keeper, none: it floats and reads at random). A row driven
//   high does nothing through a diode. A switch that bounces conducts at random in its
//   bounce window. Not modelled: resistance, capacitance, rise times (a column is at its
//   new level the instant its row changes).
// - The WS2812 data line, decoded from the pin's edges with the emulated clock and checked
//   against the WS2812B datasheet (T0H 0.4 µs, T1H 0.8 µs, T0L 0.85 µs, T1L 0.45 µs, each
//   ±150 ns; reset ≥ 50 µs low). A bit out of tolerance, a frame that is not whole bytes,
//   or a low inside a frame long enough that a real WS2812 may latch (over 5 µs, cpldcpu's
//   measurements put the latch near 6 µs) but shorter than the reset is an error event.
// - A piezo on a PWM pin: its frequency and duty measured from the pin's edges.
// - With `analog` in the config, the reflective build's front end (hardware/README.md,
//   "The reflective build's wiring"): the select pins pick one input of each multiplexer,
//   and the ADC input of multiplexer m reads its sensor: room light (steady and a mains
//   ripple), plus its reflection, the window wall and cross talk while its emitter group's
//   pin is driven high, through the phototransistor's first-order lag and the 10 kΩ
//   load's saturation, in 12-bit counts with the ADC's noise, at the instant of the read
//   (rigs/room.py is the same model and says where each figure comes from); the
//   switches on their own pins are open (high); the USB-C CC pins' inputs read the volts
//   `cc` gives them (0 V when not given). Not modelled: the multiplexers' settling.
// - The flash chip (a W25Q16JV) on the SSI: read, fast read, status, write enable, page
//   program, sector/block erase, JEDEC and unique id, so that MicroPython can write its
//   filesystem. Chip select comes from IO_QSPI's SS override, as the boot ROM drives it.
//   Program and erase take no time (a real chip needs up to 3 ms per page, 400 ms per
//   sector) and WIP is never set.
// - Time: the emulated clock never runs ahead of `rate` x wall time (the chip's WFE/WFI
//   idling would otherwise race ahead); when the host machine is slow it falls behind.
//
// Control (stdin, one JSON object per line) and events (stdout, one per line), every
// event with `t`: emulated nanoseconds since the first power-up.

import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { GPIOPinState, LogLevel, ConsoleLogger, RP2040, USBCDC } from 'rp2040js';

const config = JSON.parse(process.argv[2]);
const CYCLE_NS = 8; // 125 MHz
const FLASH_SIZE = 2 * 1024 * 1024;
const PTY_FD = config.pty_fd ?? 3; // the pty's master, inherited
const OUT_LIMIT = 4096; // bytes the bridge holds for a host that is not reading
const IN_LIMIT = 4096; // bytes taken from the pty ahead of the device

const bootrom = new Uint32Array(new Uint8Array(fs.readFileSync(config.bootrom)).buffer);
const flash = new Uint8Array(FLASH_SIZE);
flash.set(new Uint8Array(fs.readFileSync(config.flash)).subarray(0, FLASH_SIZE));

let rate = config.rate > 0 ? config.rate : 0; // 0: as fast as it goes
let epochNs = 0; // emulated time of the chips before the last reset
let mcu = null;
let cdc = null;
let boots = 0;
let resetPending = null;
let frozenUntil = 0; // a stalled core (see "stall")
let busyCycles = 0;
let idleNs = 0;
let wallStart = performance.now();
let emuStart = 0;

const stats = {
  bytesToDevice: 0,
  bytesFromDevice: 0,
  inStalls: 0,
  flashWrites: 0,
  flashErases: 0,
};

function now() {
  return epochNs + (mcu ? mcu.clock.nanos : 0);
}

function emit(event) {
  event.t = Math.round(now());
  process.stdout.write(JSON.stringify(event) + '\n');
}

// -- the switch matrix ------------------------------------------------------------------

const rows = config.rows || [];
const columns = config.columns || [];
const switches = new Map(); // "row,col" -> { closed, bounceUntil }

function conducts(row, col) {
  const sw = switches.get(row + ',' + col);
  if (!sw) return false;
  if (sw.bounceUntil > now()) return Math.random() < 0.5;
  return sw.closed;
}

function updateColumns() {
  if (!mcu) return;
  const gpio = mcu.gpio;
  for (const col of columns) {
    const pin = gpio[col];
    let low = false;
    for (const row of rows) {
      if (gpio[row].value === GPIOPinState.Low && conducts(row, col)) {
        low = true;
        break;
      }
    }
    let level;
    if (low) level = false;
    else {
      const state = pin.value;
      if (state === GPIOPinState.InputPullUp) level = true;
      else if (state === GPIOPinState.InputPullDown) level = false;
      else if (state === GPIOPinState.InputBusKeeper) level = pin.rawInputValue;
      else if (state === GPIOPinState.Input) level = Math.random() < 0.5; // floating
      else level = state === GPIOPinState.High; // driven by the chip itself
    }
    if (pin.rawInputValue !== level || pin.value === GPIOPinState.Input) pin.setInputValue(level);
  }
}

// -- the reflective build's analog front end --------------------------------------------
// The same model as rigs/room.py (which says where each figure comes from): each
// sensor's collector current is its room light (steady µA plus a mains ripple) plus,
// while its emitter group's pin is high, (cross talk + the window wall + a piece or a
// hand) × the part's gain over a minimum part; it reaches the load through a first-order
// lag (tau_us); the 10 kΩ load is linear to a soft knee at 2.7 V and saturates at 3.0 V;
// the ADC adds Gaussian noise (counts rms) from a seeded generator.

const analog = config.analog || null;
const ADC_PER_UA = (4096 / 3300) * 10;
const part = { gain: 1, tau_us: 200, noise: 0, wall: 0, crosstalk_ua: 1, ...(analog && analog.part) };
const reflection = new Map(); // channel -> µA while lit, on a minimum part
const light = new Map(); // channel -> { steady, ripple, hz, phase } in µA
const lag = new Map(); // channel -> { current, at } (µA, ns)
const groupLit = [];
let seed = 35;

function uniform() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function gauss() {
  return Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

function sensorOf(channel) {
  return analog.sensors.find((s) => s[0] === channel);
}

function photocurrent(channel, group, tNs) {
  const room = light.get(channel);
  let value = 0;
  if (room) {
    value = room.steady || 0;
    if (room.ripple) value += room.ripple * Math.sin(2 * Math.PI * room.hz * tNs * 1e-9 + (room.phase || 0));
  }
  if (groupLit[group]) {
    const back = part.crosstalk_ua + 28 * part.wall + (reflection.get(channel) || 0);
    value += back * part.gain;
  }
  return value;
}

function advance(channel, group, untilNs) {
  let state = lag.get(channel);
  if (!state) {
    state = { current: photocurrent(channel, group, untilNs), at: untilNs };
    lag.set(channel, state);
  }
  const tau = part.tau_us * 1000;
  const room = light.get(channel);
  const longest = room && room.ripple ? Math.min(40000, tau / 5) : Infinity;
  while (state.at < untilNs) {
    const step = Math.min(longest, untilNs - state.at);
    const target = photocurrent(channel, group, state.at + step / 2);
    state.current += (target - state.current) * (1 - Math.exp(-step / tau));
    state.at += step;
  }
  return state.current;
}

function loadVolts(currentUa) {
  const volts = (Math.max(currentUa, 0) * 10) / 1000;
  if (volts <= 2.7) return volts;
  return 2.7 + 0.3 * (1 - Math.exp(-(volts - 2.7) / 0.3));
}

function driven(gpio) {
  return mcu.gpio[gpio].value === GPIOPinState.High ? 1 : 0;
}

function analogReading(adcChannel) {
  const mux = analog.adcs.indexOf(26 + adcChannel);
  if (mux < 0) return 0;
  let address = 0;
  analog.select.forEach((gpio, bit) => (address |= driven(gpio) << bit));
  const sensor = analog.sensors.find((s) => s[1] === mux && s[2] === address);
  if (!sensor) {
    // A USB-C CC pin through its 10 kΩ (`cc`: [mux, input, volts]), else nothing (0 V).
    const cc = (analog.cc || []).find((c) => c[0] === mux && c[1] === address);
    return cc ? Math.max(0, Math.min(4095, Math.round((cc[2] * 4096) / 3.3))) : 0;
  }
  const [channel, , , group] = sensor;
  const current = advance(channel, group, now());
  const counts = loadVolts(current) * 1000 * (4096 / 3300) + part.noise * gauss();
  return Math.max(0, Math.min(4095, Math.round(counts)));
}

// The emitters' edges: each group's sensors are brought up to the edge before it, and
// the scan's rhythm is measured from group 0's first rise in a scan.
const emitterTiming = { lastRise: -1, scans: 0, sumPeriod: 0, maxPeriod: 0, phaseRise: -1, sumPhase: 0, phases: 0 };

function onEmitter(group, value) {
  const t = now();
  const lit = value === GPIOPinState.High;
  if (!!groupLit[group] === lit) return;
  for (const s of analog.sensors) if (s[3] === group) advance(s[0], group, t);
  groupLit[group] = lit;
  if (group !== 0 || !lit) return;
  if (emitterTiming.phaseRise >= 0 && t - emitterTiming.phaseRise < 5e6) {
    emitterTiming.sumPhase += (t - emitterTiming.phaseRise) / 2; // rise to rise is two phases
    emitterTiming.phases += 1;
    emitterTiming.phaseRise = t;
    return;
  }
  emitterTiming.phaseRise = t;
  if (emitterTiming.lastRise >= 0) {
    const period = t - emitterTiming.lastRise;
    emitterTiming.scans += 1;
    emitterTiming.sumPeriod += period;
    emitterTiming.maxPeriod = Math.max(emitterTiming.maxPeriod, period);
  }
  emitterTiming.lastRise = t;
}

// Scan timing at the pins: when row 0 is pulled low, a scan starts; it ends when the last
// row is released.
const scan = { count: 0, lastStart: -1, maxGap: 0, sumGap: 0, gaps: 0, start: -1, sumTime: 0, maxTime: 0 };

function onRowChange(index, value) {
  const t = now();
  if (index === 0 && value === GPIOPinState.Low) {
    if (scan.lastStart >= 0) {
      const gap = t - scan.lastStart;
      scan.maxGap = Math.max(scan.maxGap, gap);
      scan.sumGap += gap;
      scan.gaps += 1;
    }
    scan.lastStart = t;
    scan.start = t;
  }
  if (index === rows.length - 1 && value !== GPIOPinState.Low && scan.start >= 0) {
    const time = t - scan.start;
    scan.count += 1;
    scan.sumTime += time;
    scan.maxTime = Math.max(scan.maxTime, time);
    scan.start = -1;
  }
  updateColumns();
}

// -- the WS2812 line --------------------------------------------------------------------

const WS = {
  t0h: [250, 550],
  t1h: [650, 950],
  t0l: 700, // least low after a 0 (850 - 150)
  t1l: 300, // least low after a 1 (450 - 150)
  latch: 5000,
  reset: 50000,
};

function makeWs2812(pinIndex) {
  const line = { bits: [], rose: -1, fell: -1, start: -1, alarm: null, errors: 0 };

  function fail(why) {
    line.errors += 1;
    emit({ ev: 'ws2812_error', pin: pinIndex, why });
  }

  function finish() {
    if (!line.bits.length) return;
    const bits = line.bits;
    line.bits = [];
    if (bits.length % 8) {
      fail(`a frame of ${bits.length} bits is not whole bytes`);
      return;
    }
    const bytes = [];
    for (let i = 0; i < bits.length; i += 8) {
      let byte = 0;
      for (let j = 0; j < 8; j++) byte = (byte << 1) | bits[i + j];
      bytes.push(byte.toString(16).padStart(2, '0'));
    }
    emit({ ev: 'leds', pin: pinIndex, start: Math.round(line.start), end: Math.round(line.fell), hex: bytes.join('') });
  }

  function onChange(value) {
    const t = now();
    const high = value === GPIOPinState.High;
    if (high) {
      if (line.fell >= 0 && line.bits.length) {
        const low = t - line.fell;
        const last = line.bits[line.bits.length - 1];
        if (low >= WS.reset) {
          finish();
        } else if (low > WS.latch) {
          fail(`a low of ${(low / 1000).toFixed(2)} us inside a frame: a WS2812 may latch, the datasheet's reset is at least 50 us`);
          line.bits = [];
        } else if (low < (last ? WS.t1l : WS.t0l)) {
          fail(`T${last}L of ${Math.round(low)} ns, the datasheet asks ${last ? '450' : '850'} +-150 ns`);
          line.bits = [];
        }
      }
      if (!line.bits.length) line.start = t;
      line.rose = t;
      if (line.alarm) line.alarm.cancel();
    } else if (value === GPIOPinState.Low && line.rose >= 0) {
      const width = t - line.rose;
      line.rose = -1;
      line.fell = t;
      if (width >= WS.t0h[0] && width <= WS.t0h[1]) line.bits.push(0);
      else if (width >= WS.t1h[0] && width <= WS.t1h[1]) line.bits.push(1);
      else {
        fail(`a high of ${Math.round(width)} ns is neither T0H (400 +-150) nor T1H (800 +-150)`);
        line.bits = [];
        return;
      }
      // The frame is over once the line has stayed low for the reset time.
      line.alarm = mcu.clock.createAlarm(() => {
        line.alarm = null;
        finish();
      });
      line.alarm.schedule(WS.reset);
    }
  }

  return { onChange, line };
}

// -- the buzzer -------------------------------------------------------------------------

function makeBuzzer(pinIndex) {
  const tone = { rises: [], fall: -1, high: 0, reported: '0,0', alarm: null };

  function report(hz, duty) {
    const key = `${hz},${duty}`;
    if (key === tone.reported) return;
    tone.reported = key;
    emit({ ev: 'tone', pin: pinIndex, hz, duty });
  }

  function quiet() {
    tone.rises = [];
    report(0, 0);
  }

  function onChange(value) {
    const t = now();
    if (value === GPIOPinState.High) {
      tone.rises.push(t);
      if (tone.rises.length > 3) tone.rises.shift();
      if (tone.rises.length === 3) {
        const period = (tone.rises[2] - tone.rises[0]) / 2;
        const hz = Math.round(1e9 / period);
        const duty = Math.round((tone.high / period) * 1000) / 1000;
        report(hz, Math.min(duty, 1));
      }
    } else if (value === GPIOPinState.Low && tone.rises.length) {
      tone.high = t - tone.rises[tone.rises.length - 1];
    }
    // No edge for 20 ms: the tone has stopped (the lowest note is far above 50 Hz).
    if (tone.alarm) tone.alarm.cancel();
    tone.alarm = mcu.clock.createAlarm(quiet);
    tone.alarm.schedule(20e6);
  }

  return { onChange };
}

// -- the flash chip on the SSI ----------------------------------------------------------

const JEDEC_ID = [0xef, 0x40, 0x15]; // Winbond W25Q16JV
const UNIQUE_ID = [0x50, 0x59, 0x52, 0x41, 0x4d, 0x49, 0x44, 0x01]; // "PYRAMID", 1

function makeFlashChip() {
  const chip = { selected: false, bytes: [], wel: false, rx: [], address: 0 };

  function begin() {
    chip.selected = true;
    chip.bytes = [];
  }

  function end() {
    if (!chip.selected) return;
    chip.selected = false;
    const [cmd, a2, a1, a0] = chip.bytes;
    const address = ((a2 << 16) | (a1 << 8) | a0) & (FLASH_SIZE - 1);
    if (cmd === 0x06) chip.wel = true;
    else if (cmd === 0x04) chip.wel = false;
    else if ((cmd === 0x20 || cmd === 0x52 || cmd === 0xd8) && chip.bytes.length >= 4 && chip.wel) {
      const size = cmd === 0x20 ? 4096 : cmd === 0x52 ? 32768 : 65536;
      const start = address & ~(size - 1);
      flash.fill(0xff, start, start + size);
      mcu.flash.fill(0xff, start, start + size);
      chip.wel = false;
      stats.flashErases += 1;
      emit({ ev: 'flash_erase', address: start, size });
    } else if (cmd === 0x02 && chip.bytes.length > 4 && chip.wel) {
      const page = address & ~0xff;
      const data = chip.bytes.slice(4);
      for (let i = 0; i < data.length; i++) {
        const at = page + ((address + i) & 0xff);
        flash[at] &= data[i];
        mcu.flash[at] = flash[at];
      }
      chip.wel = false;
      stats.flashWrites += 1;
    }
  }

  // One byte clocked through: the byte the chip sends back at the same time.
  function transfer(byte) {
    if (!chip.selected) return 0xff;
    const index = chip.bytes.length;
    chip.bytes.push(byte);
    const cmd = chip.bytes[0];
    if (index === 0) return 0xff;
    switch (cmd) {
      case 0x05:
        return chip.wel ? 0x02 : 0x00; // status 1: WIP never set, WEL as it is
      case 0x35:
        return 0x02; // status 2: QE set (boot stage 2 asks)
      case 0x9f:
        return JEDEC_ID[(index - 1) % 3];
      case 0x4b:
        return index >= 5 ? UNIQUE_ID[(index - 5) % 8] : 0xff;
      case 0x03:
        if (index >= 4) {
          const [, a2, a1, a0] = chip.bytes;
          return flash[(((a2 << 16) | (a1 << 8) | a0) + index - 4) & (FLASH_SIZE - 1)];
        }
        return 0xff;
      case 0x0b:
        if (index >= 5) {
          const [, a2, a1, a0] = chip.bytes;
          return flash[(((a2 << 16) | (a1 << 8) | a0) + index - 5) & (FLASH_SIZE - 1)];
        }
        return 0xff;
      default:
        return 0xff;
    }
  }

  return { begin, end, transfer };
}

const flashChip = makeFlashChip();

function attachFlash(rp) {
  const ssi = rp.peripherals[0x18000];
  const rx = [];
  let forced = false; // chip select held by IO_QSPI's override (the ROM's flash routines)
  const readUint32 = ssi.readUint32.bind(ssi);
  const writeUint32 = ssi.writeUint32.bind(ssi);
  ssi.readUint32 = (offset) => {
    if (offset === 0x60) return rx.length ? rx.shift() : 0; // DR0
    if (offset === 0x28) return 0x06 | (rx.length ? 0x08 : 0); // SR: TFE, TFNF, RFNE; never BUSY
    if (offset === 0x24) return rx.length; // RXFLR
    if (offset === 0x20) return 0; // TXFLR: every byte is clocked out at once
    return readUint32(offset);
  };
  ssi.writeUint32 = (offset, value) => {
    if (offset === 0x60) {
      // Without the override the SSI drives chip select itself, low while its TX FIFO
      // holds bytes; here each byte goes out at once, so a transaction is taken to end
      // when the program has read every answer and starts to send again (boot stage 2's
      // status reads are such transactions).
      if (!forced && !rx.length) {
        flashChip.end();
        flashChip.begin();
      }
      rx.push(flashChip.transfer(value & 0xff));
      if (rx.length > 16) rx.shift(); // the RX FIFO holds 16
      return;
    }
    if (offset === 0x08 && !(value & 1)) {
      rx.length = 0; // SSIENR off empties the FIFOs
      if (!forced) flashChip.end();
    }
    writeUint32(offset, value);
  };
  // IO_QSPI GPIO_QSPI_SS_CTRL (offset 0x0c): OUTOVER 2 drives chip select low, 3 high.
  const ioQspi = rp.peripherals[0x40018];
  const ctrl = new Uint32Array(12);
  ioQspi.writeUint32 = (offset, value) => {
    if (offset < 0x30) ctrl[offset >> 2] = value;
    if (offset === 0x0c) {
      const over = (value >> 8) & 3;
      flashChip.end();
      forced = over === 2;
      if (forced) flashChip.begin();
    }
  };
  ioQspi.readUint32 = (offset) => (offset < 0x30 ? ctrl[offset >> 2] : 0);
}

// -- USB CDC to the pty -----------------------------------------------------------------

const toDevice = []; // byte arrays from the host, oldest first
let toDeviceBytes = 0;
const toHost = [];
let toHostBytes = 0;
let pendingOut = null; // an OUT transfer the device armed while the host had nothing
let deferredIn = []; // IN transfers held while the host is not reading

function takeForDevice(size) {
  const out = new Uint8Array(Math.min(size, toDeviceBytes));
  let filled = 0;
  while (filled < out.length) {
    const head = toDevice[0];
    const n = Math.min(head.length, out.length - filled);
    out.set(head.subarray(0, n), filled);
    filled += n;
    if (n === head.length) toDevice.shift();
    else toDevice[0] = head.subarray(n);
  }
  toDeviceBytes -= filled;
  stats.bytesToDevice += filled;
  return out;
}

function attachUsb(rp) {
  const usb = rp.usbCtrl;
  const host = new USBCDC(usb);
  host.onDeviceConnected = () => emit({ ev: 'usb' });
  host.onSerialData = (buffer) => {
    if (config.trace) traceOut(buffer);
    toHost.push(Uint8Array.from(buffer));
    toHostBytes += buffer.length;
    stats.bytesFromDevice += buffer.length;
  };
  usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== host.outEndpoint) return;
    if (toDeviceBytes) usb.endpointReadDone(endpoint, takeForDevice(size));
    else pendingOut = { endpoint, size };
  };
  const dpramUpdated = usb.DPRAMUpdated.bind(usb);
  usb.DPRAMUpdated = (offset, value) => {
    const inControl = host.inEndpoint > 0 ? 0x80 + host.inEndpoint * 8 : -1;
    if (offset === inControl && value & (1 << 10) && toHostBytes >= OUT_LIMIT) {
      stats.inStalls += 1;
      deferredIn.push([offset, value]);
      return;
    }
    dpramUpdated(offset, value);
  };
  pendingOut = null;
  deferredIn = [];
  return { usb, host, dpramUpdated };
}

// With `trace`, each line the device sends is also an event with its emulated time, so a
// test can measure the firmware's own rhythm (REPORT_MS, replies) without wall-clock noise.
let traced = '';
function traceOut(buffer) {
  traced += Buffer.from(buffer).toString('latin1');
  let newline;
  while ((newline = traced.indexOf('\n')) >= 0) {
    emit({ ev: 'out', line: traced.slice(0, newline) });
    traced = traced.slice(newline + 1);
  }
  if (traced.length > 4096) traced = '';
}

// ...and each line from the host as it leaves the pty (`in`), up to 600 bytes of it.
let tracedIn = '';
function traceIn(buffer) {
  tracedIn += Buffer.from(buffer).toString('latin1');
  let newline;
  while ((newline = tracedIn.indexOf('\n')) >= 0) {
    emit({ ev: 'in', line: tracedIn.slice(0, Math.min(newline, 600)) });
    tracedIn = tracedIn.slice(newline + 1);
  }
  if (tracedIn.length > 4096) tracedIn = '';
}

const readBuffer = Buffer.alloc(IN_LIMIT);

function pumpPty() {
  // Host to device: only as much as the device can soon take (the rest waits in the pty).
  while (toDeviceBytes < IN_LIMIT) {
    let n = 0;
    try {
      n = fs.readSync(PTY_FD, readBuffer, 0, IN_LIMIT - toDeviceBytes, null);
    } catch (error) {
      if (error.code !== 'EAGAIN' && error.code !== 'EIO') throw error;
    }
    if (n <= 0) break;
    if (config.trace) traceIn(readBuffer.subarray(0, n));
    toDevice.push(Uint8Array.from(readBuffer.subarray(0, n)));
    toDeviceBytes += n;
  }
  if (pendingOut && toDeviceBytes && cdc) {
    const { endpoint, size } = pendingOut;
    pendingOut = null;
    cdc.usb.endpointReadDone(endpoint, takeForDevice(size));
  }
  // Device to host.
  while (toHost.length) {
    const head = toHost[0];
    let n = 0;
    try {
      n = fs.writeSync(PTY_FD, head);
    } catch (error) {
      if (error.code !== 'EAGAIN' && error.code !== 'EIO') throw error;
      break;
    }
    toHostBytes -= n;
    if (n === head.length) toHost.shift();
    else {
      toHost[0] = head.subarray(n);
      break;
    }
  }
  if (toHostBytes < OUT_LIMIT && deferredIn.length && cdc) {
    const held = deferredIn;
    deferredIn = [];
    for (const [offset, value] of held) cdc.dpramUpdated(offset, value);
  }
}

// -- power, reset -----------------------------------------------------------------------

let ws2812 = null;
let buzzer = null;

function powerUp(why) {
  if (mcu) epochNs += mcu.clock.nanos;
  const rp = new RP2040();
  rp.logger = new ConsoleLogger(LogLevel.Error, true);
  rp.loadBootrom(bootrom);
  rp.flash.set(flash);
  rp.core.PC = 0x10000000;
  mcu = rp;
  attachFlash(rp);
  cdc = attachUsb(rp);
  toDevice.length = 0;
  toDeviceBytes = 0;
  rp.watchdog.onWatchdogTrigger = () => {
    // rp2040js 1.4.1 re-arms the watchdog's alarm at the very instant it fired (a full
    // wrap of its 32-bit count is 0 after `>>> 0`), which would fire it for ever; the
    // chip resets now anyway, so the alarm is switched off first.
    rp.watchdog.alarm.enable = false;
    rp.watchdog.timer.enable = false;
    resetPending = rp.watchdog.reason === 2 ? 'reset' : 'watchdog';
  };
  rows.forEach((gpio, index) => rp.gpio[gpio].addListener((value) => onRowChange(index, value)));
  if (config.led_pin != null) {
    ws2812 = makeWs2812(config.led_pin);
    rp.gpio[config.led_pin].addListener(ws2812.onChange);
  }
  if (config.buzzer_pin != null) {
    buzzer = makeBuzzer(config.buzzer_pin);
    rp.gpio[config.buzzer_pin].addListener(buzzer.onChange);
  }
  for (const col of columns) rp.gpio[col].addListener(() => updateColumns());
  if (analog) {
    // The default read takes channelValues after the ADC's sample time; the front end
    // gives the value the wires have when the read starts.
    // The switches on their own pins (buttons, the top's module) are open: pulled up.
    for (const gpio of analog.switches || []) rp.gpio[gpio].setInputValue(true);
    lag.clear();
    groupLit.length = 0;
    emitterTiming.lastRise = -1;
    emitterTiming.phaseRise = -1;
    analog.emitters.forEach((gpio, group) => rp.gpio[gpio].addListener((value) => onEmitter(group, value)));
    const adc = rp.adc;
    const read = adc.onADCRead;
    adc.onADCRead = (channel) => {
      adc.channelValues[channel] = analogReading(channel);
      read(channel);
    };
  }
  // Every read of SIO's GPIO_IN sees the wires as they are at that instant: a bouncing
  // switch or a floating column gives a fresh random level each time it is read.
  const sioRead = rp.sio.readUint32.bind(rp.sio);
  rp.sio.readUint32 = (offset) => {
    if (offset === 0x004) updateColumns();
    return sioRead(offset);
  };
  scan.lastStart = -1;
  scan.start = -1;
  boots += 1;
  frozenUntil = 0;
  emit({ ev: 'boot', n: boots, why });
  updateColumns();
}

// The RP2040's watchdog object is not exported by name; find it among the peripherals.
Object.defineProperty(RP2040.prototype, 'watchdog', {
  get() {
    return this.peripherals[0x40058];
  },
});

// -- control ----------------------------------------------------------------------------

function control(message) {
  switch (message.cmd) {
    case 'switch': {
      const key = message.row + ',' + message.col;
      const bounce = message.bounce_us ? message.bounce_us * 1000 : 0;
      switches.set(key, { closed: !!message.closed, bounceUntil: bounce ? now() + bounce : 0 });
      updateColumns();
      break;
    }
    case 'switches':
      // Many at the same emulated instant: [[row, col, closed], ...].
      for (const [row, col, closed] of message.set) {
        switches.set(row + ',' + col, { closed: !!closed, bounceUntil: 0 });
      }
      updateColumns();
      break;
    case 'reflect': {
      // A piece over sensor `channel`: `counts` of reflection while lit (0: none), and
      // `ambient` counts of steady room light, as the ADC would read them.
      const [channel, , , group] = sensorOf(message.channel);
      advance(channel, group, now());
      reflection.set(channel, (message.counts || 0) / ADC_PER_UA / part.gain);
      if (message.ambient != null) light.set(channel, { steady: message.ambient / ADC_PER_UA });
      break;
    }
    case 'room': {
      // The room at sensor `channel` (µA): `light` {steady, ripple, hz, phase} and
      // `reflection` (while lit, on a minimum part: a pearl, a hand), each if given.
      const [channel, , , group] = sensorOf(message.channel);
      advance(channel, group, now());
      if (message.light) light.set(channel, message.light);
      if (message.reflection != null) reflection.set(channel, message.reflection);
      break;
    }
    case 'reset':
      resetPending = 'button';
      break;
    case 'stall':
      // The core stops executing for this long while the clock and peripherals go on:
      // a main loop stuck with interrupts off, as far as the watchdog can tell.
      frozenUntil = (mcu ? mcu.clock.nanos : 0) + message.ms * 1e6;
      break;
    case 'rate':
      rate = message.rate > 0 ? message.rate : 0;
      wallStart = performance.now();
      emuStart = now();
      break;
    case 'stats': {
      const wall = (performance.now() - statsWall) * 1e6;
      emit({
        ev: 'stats',
        id: message.id,
        boots,
        busy_cycles: busyCycles,
        idle_ns: Math.round(idleNs),
        wall_ns: Math.round(wall),
        scans: scan.count,
        scan_max_gap: Math.round(scan.maxGap),
        scan_mean_gap: scan.gaps ? Math.round(scan.sumGap / scan.gaps) : 0,
        scan_mean_time: scan.count ? Math.round(scan.sumTime / scan.count) : 0,
        scan_max_time: Math.round(scan.maxTime),
        ws2812_errors: ws2812 ? ws2812.line.errors : 0,
        emitter_scans: emitterTiming.scans,
        emitter_mean_period: emitterTiming.scans ? Math.round(emitterTiming.sumPeriod / emitterTiming.scans) : 0,
        emitter_max_period: Math.round(emitterTiming.maxPeriod),
        emitter_mean_phase: emitterTiming.phases ? Math.round(emitterTiming.sumPhase / emitterTiming.phases) : 0,
        to_host_held: toHostBytes,
        ...stats,
      });
      if (message.clear) {
        Object.assign(scan, { count: 0, maxGap: 0, sumGap: 0, gaps: 0, sumTime: 0, maxTime: 0 });
        Object.assign(emitterTiming, { scans: 0, sumPeriod: 0, maxPeriod: 0, sumPhase: 0, phases: 0 });
        busyCycles = 0;
        idleNs = 0;
        statsWall = performance.now();
        for (const key of Object.keys(stats)) stats[key] = 0;
      }
      break;
    }
    case 'save':
      fs.writeFileSync(config.flash, flash);
      emit({ ev: 'saved', id: message.id });
      break;
    case 'quit':
      fs.writeFileSync(config.flash, flash);
      process.exit(0);
      break;
    default:
      emit({ ev: 'error', why: `unknown command ${JSON.stringify(message)}` });
  }
}

let statsWall = performance.now();
let pendingInput = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pendingInput += chunk;
  let newline;
  while ((newline = pendingInput.indexOf('\n')) >= 0) {
    const line = pendingInput.slice(0, newline).trim();
    pendingInput = pendingInput.slice(newline + 1);
    if (line) control(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));

// -- the run loop -----------------------------------------------------------------------

const SLICE_NS = 1e6; // look at the pty and the control line every emulated millisecond

function runSlice() {
  if (resetPending) {
    const why = resetPending;
    resetPending = null;
    powerUp(why);
  }
  const clock = mcu.clock;
  const core = mcu.core;
  const allowedTotal = rate ? emuStart + (performance.now() - wallStart) * 1e6 * rate : Infinity;
  const end = Math.min(clock.nanos + SLICE_NS, allowedTotal - epochNs);
  while (clock.nanos < end && !resetPending) {
    if (frozenUntil > clock.nanos) {
      const step = Math.min(frozenUntil, end) - clock.nanos;
      clock.tick(step);
    } else if (core.waiting) {
      const next = clock.nanosToNextAlarm;
      const step = next > 0 ? Math.min(next, end - clock.nanos) : end - clock.nanos;
      idleNs += step;
      clock.tick(step);
    } else {
      const cycles = core.executeInstruction();
      busyCycles += cycles;
      clock.tick(cycles * CYCLE_NS);
    }
  }
  pumpPty();
  if (rate && now() >= allowedTotal - SLICE_NS) {
    setTimeout(runSlice, 1);
  } else {
    setImmediate(runSlice);
  }
}

powerUp('power');
emuStart = 0;
wallStart = performance.now();
runSlice();
