// Run in a fresh process by bench/run.ts: import the built package and make the first call.
const t0 = performance.now();
const m = await import('../dist/index.js');
m.encodeText('Open Qwen in 阿里 Cloud');
console.log(JSON.stringify({ ms: performance.now() - t0 }));
