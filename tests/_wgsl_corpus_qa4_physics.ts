/**
 * QA wave 4, WebGPU physics: a position-based-dynamics cloth step and a particle-grid water
 * solver whose structs the host prepends; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

// water-webgpu's Particle (48 bytes: position, weight, velocity, acceleration, indexInCell).
const PARTICLES = w(
  ...Array.from({ length: 64 }, (_, i) => [
    { f: ((i * 37) % 64) / 64 },
    { f: ((i * 11) % 64) / 64 },
    { f: ((i * 23) % 64) / 64 },
    { f: 0.4 + (i % 5) * 0.2 },
    { f: 0.1 },
    { f: -0.2 },
    { f: 0 },
    0,
    { f: 0 },
    { f: 0 },
    { f: 0 },
    i % 8,
  ]).flat(),
);
const WATER_UNIFORMS = {
  gridSize: [2, 2, 2],
  cellSize: 0.5,
  cellsStride: [1, 2, 4],
  particleRadius: 0.1,
  gravity: [0, -9.8, 0],
  dt: 0.016,
  upperBound: [0.9, 0.9, 0.9],
  particlesCount: 60,
  lowerBound: [0.1, 0.1, 0.1],
  weightThreshold: 0.5,
};

export const PHYSICS4: readonly CorpusCase[] = [
  {
    // https://github.com/piellardj/water-webgpu/blob/main/src/shaders/engine/simulation/acceleration.wgsl
    // verbatim, with the Particle, Cell and Uniforms structs its host code
    // (src/ts/engine/engine.ts, simulation/acceleration.ts) prepends: `override workgroupSize:
    // i32` without a default in `@workgroup_size`, the builtin in a struct parameter named
    // `in`, `for` loops over a vector's components, bindings declared before their structs.
    name: "water-webgpu acceleration (override i32 workgroup size, vec3 i32/u32 uniforms)",
    source: /* wgsl */ `struct Particle {
    position: vec3<f32>,
    weight: f32,
    velocity: vec3<f32>,
    acceleration: vec3<f32>,
    indexInCell: u32,
};
struct Cell { offset: u32, particlesCount: u32 };
struct Uniforms {
    gridSize: vec3<i32>, cellSize: f32, cellsStride: vec3<u32>, particleRadius: f32,
    gravity: vec3<f32>, dt: f32, upperBound: vec3<f32>, particlesCount: u32,
    lowerBound: vec3<f32>, weightThreshold: f32,
};
@group(0) @binding(0) var<storage,read_write> particlesBuffer: array<Particle>;
@group(0) @binding(1) var<storage,read> cellsBuffer: array<Cell>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

override workgroupSize: i32;

struct ComputeIn {
    @builtin(global_invocation_id) globalInvocationId : vec3<u32>,
};

fn computeCellId(position: vec3<f32>) -> vec3<i32> {
    let naiveCellId = vec3<i32>(position / uniforms.cellSize);
    return clamp(naiveCellId, vec3<i32>(0), uniforms.gridSize - 1);
}

@compute @workgroup_size(workgroupSize)
fn main(in: ComputeIn) {
    let particleId = in.globalInvocationId.x;

    if (particleId < uniforms.particlesCount) {
        var particle = particlesBuffer[particleId];

        particle.acceleration = vec3<f32>(0);

        let cellId = computeCellId(particle.position);
        let minNeighbourCellId = vec3<u32>(max(cellId - 1, vec3<i32>(0)));
        let maxNeighbourCellId = vec3<u32>(min(cellId + 1, uniforms.gridSize - 1));
        var neighbourCellId: vec3<u32>;
        for (neighbourCellId.z = minNeighbourCellId.z; neighbourCellId.z <= maxNeighbourCellId.z; neighbourCellId.z++) {
            for (neighbourCellId.y = minNeighbourCellId.y; neighbourCellId.y <= maxNeighbourCellId.y; neighbourCellId.y++) {
                for (neighbourCellId.x = minNeighbourCellId.x; neighbourCellId.x <= maxNeighbourCellId.x; neighbourCellId.x++) {
                    let neighbourCellIndex = dot(neighbourCellId, uniforms.cellsStride);
                    let neighbourCell = cellsBuffer[neighbourCellIndex];

                    let neighbourStartIndex = neighbourCell.offset;
                    let neighbourEndIndex = neighbourCell.offset + neighbourCell.particlesCount; // exclusive
                    for (var neighbourIndex = neighbourStartIndex; neighbourIndex < neighbourEndIndex; neighbourIndex++) {
                        if (neighbourIndex != particleId) {
                            let neighbour = particlesBuffer[neighbourIndex];
                            let fromVector = particle.position - neighbour.position;
                            let distance = length(fromVector);

                            let penetration = 2.0 * uniforms.particleRadius - distance;

                            if (penetration > 0.0) {
                                particle.acceleration += (0.96 * particle.weight / (particle.weight + neighbour.weight)) * penetration * normalize(fromVector) / uniforms.dt;
                            }
                        }
                    }
                }
            }
        }

        particle.acceleration += uniforms.gravity;

        // upper bound
        let upperBound = vec3<f32>(1.0 - uniforms.particleRadius);
        let upperBoundPenetration = particle.position - upperBound;
        let upperBoundCheck = step(vec3<f32>(0), upperBoundPenetration); // 1 if out of bounds, 0 if in bounds
        particle.acceleration -= upperBoundCheck * (2.0 * upperBoundPenetration) / uniforms.dt;

        // lower bound
        let lowerBound = vec3<f32>(uniforms.particleRadius);
        let lowerBoundPenetration = lowerBound - particle.position;
        let lowerBoundCheck = step(vec3<f32>(0), lowerBoundPenetration); // 1 if out of bounds, 0 if in bounds
        particle.acceleration += lowerBoundCheck * (2.0 * lowerBoundPenetration) / uniforms.dt;

        particlesBuffer[particleId] = particle;
    }
}
`,
    plain: [
      B(0, 0, PARTICLES),
      B(0, 1, Uint32Array.from({ length: 16 }, (_, i) => i % 2 ? 8 : (i >> 1) * 8)),
      B(
        0,
        2,
        w(
          ...[{ i: 2 }, { i: 2 }, { i: 2 }, { f: 0.5 }, 1, 2, 4, { f: 0.1 }],
          ...[
            { f: 0 },
            { f: -9.8 },
            { f: 0 },
            { f: 0.016 },
            { f: 0.9 },
            { f: 0.9 },
            { f: 0.9 },
            60,
          ],
          ...[{ f: 0.1 }, { f: 0.1 }, { f: 0.1 }, { f: 0.5 }],
        ),
        true,
      ),
    ],
    workgroups: [2, 1, 1],
    constants: { workgroupSize: 32 },
    params: WATER_UNIFORMS,
  },
  {
    // https://github.com/Shlyapa0/cloth-simulation/blob/main/shaders/compute-pbd-3.wgsl
    // verbatim: PBD stage 3, a bare `vec4f` uniform, `array<vec3f>` positions (16-byte
    // stride) beside `array<vec4f>` velocities, `@compute` and `@workgroup_size` on two lines.
    name: "cloth-simulation PBD stage 3 (bare vec4f uniform, array<vec3f> beside array<vec4f>)",
    source: /* wgsl */ `// PBD Stage 3: Update velocities & positions
@group(0) @binding(0) var<uniform> uniforms : vec4f;
@group(0) @binding(1) var<storage, read_write> positions : array<vec3f>;
@group(0) @binding(2) var<storage, read_write> velocities : array<vec4f>;
@group(0) @binding(3) var<storage, read_write> inverseMasses : array<f32>;

@compute
@workgroup_size(64)
fn main(@builtin(global_invocation_id) globalID : vec3u) {
    let index = globalID.x;
    
    let dt = uniforms.x;
    let damping = uniforms.z;
    
    // Skip if vertex is pinned
    if (inverseMasses[index] == 0.0) {
        return;
    }
    
    // Apply damping
    velocities[index] = velocities[index] * damping;
    
    // Update position
    positions[index] = positions[index] + velocities[index].xyz * dt;
}`,
    plain: [
      B(0, 0, w({ f: 0.016 }, { f: 0 }, { f: 0.98 }, { f: 0 }), true),
      B(0, 1, f(64 * 4, 0.01)),
      B(0, 2, f(64 * 4, 0.5, -20)),
      B(0, 3, Float32Array.from({ length: 64 }, (_, i) => i % 7 === 0 ? 0 : 1 / (1 + i))),
    ],
    workgroups: [1, 1, 1],
    params: { uniforms: [0.016, 0, 0.98, 0] },
  },
];
