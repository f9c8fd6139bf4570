//! The trainer of Sessa's evaluation network, on the CPU with rayon.
//!
//! The network is the engine's `(768 → N) × 2 → 1` perspective network
//! with SCReLU (`clamp(x, 0, 1)²`) and output buckets chosen by the number of
//! pieces, here in 32-bit floats. For each position the prediction is
//! `sigmoid(output)` and the target is
//! `λ · result + (1 − λ) · sigmoid(score / SCALE)`, both from the side to
//! move's point of view; the loss is the squared difference. Adam updates
//! the weights after each batch, the learning rate falls along a cosine from
//! `lr` to `lr_end`, weights are clipped to the range the quantised engine
//! network can hold, the training positions are reshuffled every epoch, and
//! a held-out share of the data measures the loss on positions never trained on.
//!
//! The network's [`InputLayout`] (plain, or mirrored by each side's king) and
//! the width `N` of its first layer (one of [`HIDDEN_SIZES`]) are chosen when
//! a run starts and travel with the network into its file.
//!
//! A batch's gradient is summed in [`GRADIENT_PARTS`] fixed parts added in a
//! fixed order, so the same data, settings and seed give the same network
//! whatever the number of threads.
//!
//! The data are `bulletformat::ChessBoard` records (32 bytes, side to move
//! relative), as `datagen` writes them.

use crate::rng::{Rng, shuffle};
use bulletformat::ChessBoard;
use rayon::prelude::*;
use sessa_engine::nnue::{
    HIDDEN_SIZES, INPUTS, InputLayout, Layers, Network, OUTPUT_BUCKETS, QA, QB, SCALE, WEIGHT_CLIP,
    Weights, feature_index, output_bucket,
};
use shakmaty::{Color, Piece, Role, Square};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Where each parameter block of a network starts in its flat parameter
/// vector, for a first layer `hidden` wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Blocks {
    hidden: usize,
    feature_bias: usize,
    output_weights: usize,
    output_bias: usize,
    parameters: usize,
}

impl Blocks {
    /// The first-layer weights come first, at 0.
    const FEATURE_WEIGHTS: usize = 0;

    const fn of(hidden: usize) -> Blocks {
        let feature_bias = INPUTS * hidden;
        let output_weights = feature_bias + hidden;
        let output_bias = output_weights + OUTPUT_BUCKETS * 2 * hidden;
        Blocks {
            hidden,
            feature_bias,
            output_weights,
            output_bias,
            parameters: output_bias + OUTPUT_BUCKETS,
        }
    }

    /// Where the output weights of `bucket` start.
    fn output_weights_of(self, bucket: usize) -> usize {
        self.output_weights + bucket * 2 * self.hidden
    }
}

/// Number of parameters of a network whose first layer is `hidden` wide.
pub const fn parameters(hidden: usize) -> usize {
    Blocks::of(hidden).parameters
}
/// Most pieces a position has, so most active inputs per view.
const MAX_FEATURES: usize = 32;
/// Parts a batch is split into, each summed on one thread; the parts'
/// gradients are then added in order, so that the sum does not depend on
/// how many threads there are.
pub const GRADIENT_PARTS: usize = 8;

/// The float network: all parameters in one vector (first-layer weights
/// input-major, first-layer biases, each output bucket's weights for the
/// side to move's view then the other's, the output biases).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The parameters: the first-layer weights (input by input), its
    /// biases, each bucket's output weights (side to move's view, then the
    /// other's), the output biases.
    pub params: Vec<f32>,
    /// How the inputs place the pieces of each view.
    pub layout: InputLayout,
    blocks: Blocks,
}

/// The active inputs of one position, for the side to move's view and the other's.
pub struct Features {
    us: [u16; MAX_FEATURES],
    them: [u16; MAX_FEATURES],
    count: usize,
    bucket: usize,
}

impl Features {
    /// Reads the inputs of a record in `layout`. Records are side to move
    /// relative (the side to move's pieces are colour 0, seen from its side
    /// of the board), which is the engine's White view of a position with
    /// White to move: the engine's own feature indices apply, so the two
    /// cannot disagree.
    pub fn of(record: &ChessBoard, layout: InputLayout) -> Features {
        Features::read(record, layout, false)
    }

    /// The inputs of a record's mirror image, files a and h swapped. The
    /// records hold no castling rights, so to the network a position and its
    /// mirror image are equally likely and worth the same: the mirror image
    /// is a second training position for free. (Under the king-mirrored
    /// layout the two give the very same inputs.)
    pub fn mirrored(record: &ChessBoard, layout: InputLayout) -> Features {
        Features::read(record, layout, true)
    }

    fn read(record: &ChessBoard, layout: InputLayout, mirror: bool) -> Features {
        let mut pieces = [(
            Piece {
                color: Color::White,
                role: Role::Pawn,
            },
            Square::A1,
        ); MAX_FEATURES];
        let mut count = 0;
        let mut kings = [Square::A1; 2];
        for (piece, square) in *record {
            if count == MAX_FEATURES {
                break;
            }
            let color = if piece >> 3 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let role = Role::ALL[usize::from(piece & 7)];
            let square = Square::new(u32::from(if mirror { square ^ 7 } else { square }));
            if role == Role::King {
                kings[usize::from(color == Color::Black)] = square;
            }
            pieces[count] = (Piece { color, role }, square);
            count += 1;
        }
        let ours = layout.orientation(Color::White, kings[0]);
        let theirs = layout.orientation(Color::Black, kings[1]);
        let mut features = Features {
            us: [0; MAX_FEATURES],
            them: [0; MAX_FEATURES],
            count,
            bucket: output_bucket(count),
        };
        for (i, &(piece, square)) in pieces[..count].iter().enumerate() {
            features.us[i] = feature_index(Color::White, ours, piece, square) as u16;
            features.them[i] = feature_index(Color::Black, theirs, piece, square) as u16;
        }
        features
    }
}

/// What a forward pass of a network `H` wide keeps for the backward pass.
struct Activations<const H: usize> {
    us: [f32; H],
    them: [f32; H],
    output: f32,
}

/// `clamp(x, 0, 1)²`.
#[inline]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Blend of the game result and the search score that a position is trained toward.
#[inline]
pub fn target(record: &ChessBoard, wdl_weight: f32) -> f32 {
    let result = f32::from(record.result) / 2.0;
    let score = sigmoid(f32::from(record.score) / SCALE as f32);
    wdl_weight * result + (1.0 - wdl_weight) * score
}

impl FloatNetwork {
    /// A randomly initialised network of `layout` with a first layer
    /// `hidden` wide: first-layer weights uniform in ±0.1 (about 30 of them
    /// sum into each accumulator), output weights in ±1/√(2·hidden) (each
    /// bucket's drawn anew), biases zero.
    ///
    /// # Panics
    /// If `hidden` is not one of [`HIDDEN_SIZES`].
    pub fn random(seed: u64, layout: InputLayout, hidden: usize) -> FloatNetwork {
        assert!(
            HIDDEN_SIZES.contains(&hidden),
            "a first layer {hidden} wide (the widths are {HIDDEN_SIZES:?})"
        );
        let blocks = Blocks::of(hidden);
        let mut rng = Rng::new(seed);
        let mut params = vec![0.0; blocks.parameters];
        for w in &mut params[Blocks::FEATURE_WEIGHTS..blocks.feature_bias] {
            *w = rng.uniform(0.1);
        }
        let output_limit = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut params[blocks.output_weights..blocks.output_bias] {
            *w = rng.uniform(output_limit);
        }
        FloatNetwork {
            params,
            layout,
            blocks,
        }
    }

    /// Width of the first layer (per view).
    pub fn hidden(&self) -> usize {
        self.blocks.hidden
    }

    /// The inputs of `record` in this network's layout.
    pub fn features(&self, record: &ChessBoard) -> Features {
        Features::of(record, self.layout)
    }

    fn row(&self, feature: u16) -> &[f32] {
        let hidden = self.hidden();
        let at = Blocks::FEATURE_WEIGHTS + usize::from(feature) * hidden;
        &self.params[at..at + hidden]
    }

    /// The forward pass, with arrays of the network's width `H` (which the
    /// callers match on once per position).
    fn forward_activations<const H: usize>(&self, features: &Features) -> Activations<H> {
        debug_assert_eq!(H, self.hidden());
        let blocks = self.blocks;
        let bias = &self.params[blocks.feature_bias..blocks.output_weights];
        let mut activations = Activations {
            us: [0.0; H],
            them: [0.0; H],
            output: self.params[blocks.output_bias + features.bucket],
        };
        let (us, them) = (&mut activations.us, &mut activations.them);
        us.copy_from_slice(bias);
        them.copy_from_slice(bias);
        for i in 0..features.count {
            for (a, w) in us.iter_mut().zip(self.row(features.us[i])) {
                *a += w;
            }
            for (a, w) in them.iter_mut().zip(self.row(features.them[i])) {
                *a += w;
            }
        }
        let at = blocks.output_weights_of(features.bucket);
        let (ours, theirs) = self.params[at..at + 2 * H].split_at(H);
        for j in 0..H {
            activations.output += screlu(us[j]) * ours[j] + screlu(them[j]) * theirs[j];
        }
        activations
    }

    /// The network's output for a position (its evaluation divided by `SCALE`).
    pub fn forward(&self, features: &Features) -> f32 {
        match self.hidden() {
            128 => self.forward_activations::<128>(features).output,
            256 => self.forward_activations::<256>(features).output,
            384 => self.forward_activations::<384>(features).output,
            512 => self.forward_activations::<512>(features).output,
            hidden => unreachable!("a network {hidden} wide"),
        }
    }

    /// Adds the loss gradient of one position to `gradient` and returns its loss.
    fn backward(&self, features: &Features, target: f32, gradient: &mut [f32]) -> f32 {
        match self.hidden() {
            128 => self.backward_at::<128>(features, target, gradient),
            256 => self.backward_at::<256>(features, target, gradient),
            384 => self.backward_at::<384>(features, target, gradient),
            512 => self.backward_at::<512>(features, target, gradient),
            hidden => unreachable!("a network {hidden} wide"),
        }
    }

    /// [`FloatNetwork::backward`] for a network `H` wide.
    fn backward_at<const H: usize>(
        &self,
        features: &Features,
        target: f32,
        gradient: &mut [f32],
    ) -> f32 {
        let blocks = self.blocks;
        let activations = self.forward_activations::<H>(features);
        let prediction = sigmoid(activations.output);
        let error = prediction - target;
        let d_output = 2.0 * error * prediction * (1.0 - prediction);
        gradient[blocks.output_bias + features.bucket] += d_output;
        let at = blocks.output_weights_of(features.bucket);
        let weights = &self.params[at..at + 2 * H];
        let mut d_us = [0.0; H];
        let mut d_them = [0.0; H];
        {
            let (g_ours, g_theirs) = gradient[at..at + 2 * H].split_at_mut(H);
            for j in 0..H {
                let (u, t) = (activations.us[j], activations.them[j]);
                g_ours[j] += d_output * screlu(u);
                g_theirs[j] += d_output * screlu(t);
                let du = if u > 0.0 && u < 1.0 { 2.0 * u } else { 0.0 };
                let dt = if t > 0.0 && t < 1.0 { 2.0 * t } else { 0.0 };
                d_us[j] = d_output * weights[j] * du;
                d_them[j] = d_output * weights[H + j] * dt;
            }
        }
        for (g, (du, dt)) in gradient[blocks.feature_bias..blocks.output_weights]
            .iter_mut()
            .zip(d_us.iter().zip(&d_them))
        {
            *g += du + dt;
        }
        for i in 0..features.count {
            for (view, delta) in [(features.us[i], &d_us), (features.them[i], &d_them)] {
                let at = Blocks::FEATURE_WEIGHTS + usize::from(view) * H;
                for (g, d) in gradient[at..at + H].iter_mut().zip(delta) {
                    *g += d;
                }
            }
        }
        error * error
    }

    /// The float network whose weights are exactly those of a quantised one
    /// (to continue training from it, or to check the engine's arithmetic).
    pub fn from_quantised(net: &Network) -> FloatNetwork {
        let blocks = Blocks::of(net.hidden());
        let mut params = vec![0.0; blocks.parameters];
        match &net.weights {
            Weights::Hidden128(layers) => dequantise(layers, blocks, &mut params),
            Weights::Hidden256(layers) => dequantise(layers, blocks, &mut params),
            Weights::Hidden384(layers) => dequantise(layers, blocks, &mut params),
            Weights::Hidden512(layers) => dequantise(layers, blocks, &mut params),
        }
        FloatNetwork {
            params,
            layout: net.layout,
            blocks,
        }
    }

    /// The quantised network the engine reads.
    pub fn quantise(&self) -> Network {
        let weights = match self.hidden() {
            128 => Weights::Hidden128(quantise(&self.params, self.blocks)),
            256 => Weights::Hidden256(quantise(&self.params, self.blocks)),
            384 => Weights::Hidden384(quantise(&self.params, self.blocks)),
            512 => Weights::Hidden512(quantise(&self.params, self.blocks)),
            hidden => unreachable!("a network {hidden} wide"),
        };
        Network {
            layout: self.layout,
            weights,
        }
    }
}

/// Writes the float values of `layers` into `params`, laid out as `blocks` says.
fn dequantise<const H: usize>(layers: &Layers<H>, blocks: Blocks, params: &mut [f32]) {
    for (input, row) in layers.feature_weights.iter().enumerate() {
        for (j, &w) in row.iter().enumerate() {
            params[Blocks::FEATURE_WEIGHTS + input * H + j] = f32::from(w) / QA as f32;
        }
    }
    for (j, &b) in layers.feature_bias.iter().enumerate() {
        params[blocks.feature_bias + j] = f32::from(b) / QA as f32;
    }
    for (bucket, halves) in layers.output_weights.iter().enumerate() {
        let at = blocks.output_weights_of(bucket);
        for (j, &w) in halves.iter().flatten().enumerate() {
            params[at + j] = f32::from(w) / QB as f32;
        }
        params[blocks.output_bias + bucket] = layers.output_bias[bucket] as f32 / (QA * QB) as f32;
    }
}

/// The quantised layers of the float `params`, laid out as `blocks` says.
fn quantise<const H: usize>(params: &[f32], blocks: Blocks) -> Box<Layers<H>> {
    let mut layers = Layers::<H>::zeroed();
    let q16 = |w: f32, scale: i32| (w * scale as f32).round().clamp(-32768.0, 32767.0) as i16;
    for (input, row) in layers.feature_weights.iter_mut().enumerate() {
        for (j, w) in row.iter_mut().enumerate() {
            *w = q16(params[Blocks::FEATURE_WEIGHTS + input * H + j], QA);
        }
    }
    for (j, b) in layers.feature_bias.iter_mut().enumerate() {
        *b = q16(params[blocks.feature_bias + j], QA);
    }
    for (bucket, halves) in layers.output_weights.iter_mut().enumerate() {
        let at = blocks.output_weights_of(bucket);
        for (j, w) in halves.iter_mut().flatten().enumerate() {
            *w = q16(params[at + j], QB);
        }
        layers.output_bias[bucket] =
            (params[blocks.output_bias + bucket] * (QA * QB) as f32).round() as i32;
    }
    layers
}

/// Adam's running moments, one pair per parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    first: Vec<f32>,
    second: Vec<f32>,
    steps: u64,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

impl Adam {
    /// Fresh moments for `parameters` parameters.
    fn new(parameters: usize) -> Adam {
        Adam {
            first: vec![0.0; parameters],
            second: vec![0.0; parameters],
            steps: 0,
        }
    }

    /// One step against the mean `gradient`, then clips every weight (not the output biases).
    /// `decay` is the decoupled weight decay (AdamW): every parameter also
    /// shrinks by `lr · decay` of itself.
    fn step(&mut self, net: &mut FloatNetwork, gradient: &[f32], lr: f32, decay: f32) {
        let output_bias = net.blocks.output_bias;
        self.steps += 1;
        let correction1 = 1.0 - BETA1.powi(self.steps as i32);
        let correction2 = 1.0 - BETA2.powi(self.steps as i32);
        let step = lr * correction2.sqrt() / correction1;
        net.params
            .par_chunks_mut(4096)
            .zip(self.first.par_chunks_mut(4096))
            .zip(self.second.par_chunks_mut(4096))
            .zip(gradient.par_chunks(4096))
            .enumerate()
            .for_each(|(chunk, (((params, first), second), gradient))| {
                for i in 0..params.len() {
                    let g = gradient[i];
                    first[i] = BETA1 * first[i] + (1.0 - BETA1) * g;
                    second[i] = BETA2 * second[i] + (1.0 - BETA2) * g * g;
                    params[i] -=
                        step * first[i] / (second[i].sqrt() + EPSILON) + lr * decay * params[i];
                    if chunk * 4096 + i < output_bias {
                        params[i] = params[i].clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                    }
                }
            });
    }
}

/// Reads records from files and folders (every `*.bin` file inside).
pub fn load_records(paths: &[PathBuf]) -> std::io::Result<Vec<ChessBoard>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "bin"))
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(path.clone());
        }
    }
    let mut records = Vec::new();
    for file in files {
        let mut bytes = Vec::new();
        std::fs::File::open(&file)?.read_to_end(&mut bytes)?;
        if bytes.len() % 32 != 0 {
            return Err(std::io::Error::other(format!(
                "{}: {} bytes is not a whole number of 32-byte records",
                file.display(),
                bytes.len()
            )));
        }
        records.extend(bytes.chunks_exact(32).map(record_from_bytes));
    }
    Ok(records)
}

/// One record from its 32 bytes (little-endian fields in declaration order).
pub fn record_from_bytes(bytes: &[u8]) -> ChessBoard {
    let mut pcs = [0; 16];
    pcs.copy_from_slice(&bytes[8..24]);
    ChessBoard {
        occ: u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
        pcs,
        score: i16::from_le_bytes([bytes[24], bytes[25]]),
        result: bytes[26],
        ksq: bytes[27],
        opp_ksq: bytes[28],
        extra: [bytes[29], bytes[30], bytes[31]],
    }
}

/// How a training run goes.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per Adam step.
    pub batch_size: usize,
    /// Learning rate at the start.
    pub lr: f32,
    /// Learning rate at the end of the last epoch.
    pub lr_end: f32,
    /// Weight of the game result in the target (λ); the rest is the score's.
    pub wdl_weight: f32,
    /// Share of the positions held out to measure the loss.
    pub held_out: f64,
    /// Seed of the initial weights, the hold-out split and the shuffles.
    pub seed: u64,
    /// Decoupled weight decay (0: none): every parameter shrinks by
    /// `lr · weight_decay` of itself at each step.
    pub weight_decay: f32,
    /// Train on each position's mirror image (files a and h swapped) in
    /// every other epoch, alternating record by record, instead of on the
    /// position itself: twice the positions at the same cost per epoch
    /// (no change at all under the king-mirrored layout).
    pub mirror: bool,
    /// The input layout of a network trained from random weights (one
    /// trained onward keeps its own).
    pub layout: InputLayout,
    /// The first layer's width of a network trained from random weights
    /// (one trained onward keeps its own), one of [`HIDDEN_SIZES`].
    pub hidden: usize,
}

/// The loss after one epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Mean loss over the training positions during the epoch.
    pub train_loss: f64,
    /// Mean loss over the held-out positions after the epoch.
    pub held_out_loss: f64,
    /// The learning rate at the end of the epoch.
    pub lr: f32,
}

/// A training run in progress: network, optimiser, position order.
pub struct Trainer {
    /// The network being trained.
    pub net: FloatNetwork,
    adam: Adam,
    settings: Settings,
    train: Vec<ChessBoard>,
    held_out: Vec<ChessBoard>,
    /// Epochs already done.
    pub epochs_done: usize,
    /// The gradient of each part of a batch, and their sum: kept from batch
    /// to batch rather than allocated anew.
    part_gradients: Vec<Vec<f32>>,
    gradient: Vec<f32>,
}

/// Consecutive records held out together.
pub const HELD_OUT_BLOCK: usize = 1024;
/// Mixed into the seed of the hold-out split, so that it does not follow the
/// same random stream as the initial weights.
const SPLIT_SEED: u64 = 0x5EED_0F5B_11AB_C0DE;

/// The mean loss of `net` over `records` (summed in fixed blocks in a fixed
/// order, so the same whatever the number of threads).
pub fn mean_loss(net: &FloatNetwork, records: &[ChessBoard], wdl_weight: f32) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let blocks: Vec<f64> = records
        .par_chunks(HELD_OUT_BLOCK)
        .map(|block| {
            block
                .iter()
                .map(|r| {
                    let error = sigmoid(net.forward(&net.features(r))) - target(r, wdl_weight);
                    f64::from(error * error)
                })
                .sum()
        })
        .collect();
    blocks.iter().sum::<f64>() / records.len() as f64
}

/// Search scores beyond this many centipawns (won or lost positions, mates)
/// are left out of [`mean_abs_eval`]: a few of them would outweigh the rest.
pub const SCALE_SCORE_LIMIT: i32 = 2000;

/// The mean absolute evaluation of `net`, in centipawns, over every
/// `stride`-th record whose search score is within ±[`SCALE_SCORE_LIMIT`]:
/// the size of the network's scores, to compare two networks on the same
/// positions.
pub fn mean_abs_eval(net: &FloatNetwork, records: &[ChessBoard], stride: usize) -> f64 {
    let (sum, count) = records
        .iter()
        .step_by(stride.max(1))
        .filter(|r| i32::from(r.score).abs() <= SCALE_SCORE_LIMIT)
        .map(|r| f64::from(net.forward(&net.features(r)) * SCALE as f32).abs())
        .fold((0.0, 0usize), |(sum, count), e| (sum + e, count + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// Multiplies the output layer of a quantised network (every bucket's
/// weights and bias) by `factor`, rounding to the nearest integer, so that
/// every evaluation scales by about `factor` while the first layer, and so
/// the way positions are told apart, stays the same.
///
/// Each generation learns from search scores, which run larger than the
/// static evaluations of the engine that searched; scaling a new network back
/// to its predecessor's size keeps the search's margins meaningful (see
/// `bench/RESULTS.md`).
pub fn scale_output(net: &mut Network, factor: f64) {
    match &mut net.weights {
        Weights::Hidden128(layers) => scale_layers(layers, factor),
        Weights::Hidden256(layers) => scale_layers(layers, factor),
        Weights::Hidden384(layers) => scale_layers(layers, factor),
        Weights::Hidden512(layers) => scale_layers(layers, factor),
    }
}

fn scale_layers<const H: usize>(layers: &mut Layers<H>, factor: f64) {
    for weight in layers.output_weights.iter_mut().flatten().flatten() {
        *weight = (f64::from(*weight) * factor)
            .round()
            .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16;
    }
    for bias in layers.output_bias.iter_mut() {
        *bias = (f64::from(*bias) * factor).round() as i32;
    }
}

impl Trainer {
    /// A run over `records` from random weights: a shuffled share is held
    /// out, the rest trained on.
    ///
    /// The positions of one game are alike, so the share is held out in
    /// blocks of [`HELD_OUT_BLOCK`] consecutive records (about ten games):
    /// the held-out loss then measures positions from games never trained on.
    pub fn new(records: Vec<ChessBoard>, settings: Settings) -> Trainer {
        let mut blocks: Vec<&[ChessBoard]> = records.chunks(HELD_OUT_BLOCK).collect();
        shuffle(&mut blocks, &mut Rng::new(settings.seed ^ SPLIT_SEED));
        let held_blocks = ((blocks.len() as f64) * settings.held_out).round() as usize;
        let held_out: Vec<ChessBoard> = blocks[..held_blocks].concat();
        let train: Vec<ChessBoard> = blocks[held_blocks..].concat();
        let net = FloatNetwork::random(settings.seed, settings.layout, settings.hidden);
        let parameters = net.params.len();
        Trainer {
            net,
            adam: Adam::new(parameters),
            settings,
            train,
            held_out,
            epochs_done: 0,
            part_gradients: vec![vec![0.0; parameters]; GRADIENT_PARTS],
            gradient: vec![0.0; parameters],
        }
    }

    /// Starts from `net`'s weights (its layout and width too) instead of
    /// random ones.
    pub fn start_from(&mut self, net: FloatNetwork) {
        let parameters = net.params.len();
        self.net = net;
        self.adam = Adam::new(parameters);
        self.part_gradients = vec![vec![0.0; parameters]; GRADIENT_PARTS];
        self.gradient = vec![0.0; parameters];
    }

    /// Positions trained on and held out.
    pub fn sizes(&self) -> (usize, usize) {
        (self.train.len(), self.held_out.len())
    }

    /// The loss over the held-out positions.
    pub fn held_out_loss(&self) -> f64 {
        mean_loss(&self.net, &self.held_out, self.settings.wdl_weight)
    }

    fn learning_rate(&self, progress: f64) -> f32 {
        let s = &self.settings;
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress.clamp(0.0, 1.0)).cos());
        s.lr_end + (s.lr - s.lr_end) * cosine as f32
    }

    /// Trains one epoch over the training positions in a new random order,
    /// which depends only on the seed and the epoch number.
    pub fn epoch(&mut self) -> EpochReport {
        let mut order: Vec<u32> = (0..self.train.len() as u32).collect();
        shuffle(
            &mut order,
            &mut Rng::new(self.settings.seed ^ ((self.epochs_done as u64 + 1) << 32)),
        );
        let batch_size = self.settings.batch_size.max(1);
        let batches = self.train.len().div_ceil(batch_size).max(1);
        let mut total_loss = 0.0;
        let mut lr = self.settings.lr;
        for batch_index in 0..batches {
            let start = batch_index * batch_size;
            let batch = &order[start..(start + batch_size).min(order.len())];
            if batch.is_empty() {
                break;
            }
            let net = &self.net;
            let train = &self.train;
            let wdl_weight = self.settings.wdl_weight;
            let mirror = self.settings.mirror;
            let layout = net.layout;
            let epoch_parity = self.epochs_done as u32 & 1;
            let losses: Vec<f64> = batch
                .par_chunks(batch.len().div_ceil(GRADIENT_PARTS))
                .zip(self.part_gradients.par_iter_mut())
                .map(|(part, gradient)| {
                    gradient.fill(0.0);
                    let mut loss = 0.0f64;
                    for &index in part {
                        let record = &train[index as usize];
                        let features = if mirror && (index & 1) == epoch_parity {
                            Features::mirrored(record, layout)
                        } else {
                            Features::of(record, layout)
                        };
                        loss += f64::from(net.backward(
                            &features,
                            target(record, wdl_weight),
                            gradient,
                        ));
                    }
                    loss
                })
                .collect();
            let parts = &self.part_gradients[..losses.len()];
            let scale = 1.0 / batch.len() as f32;
            self.gradient
                .par_chunks_mut(4096)
                .enumerate()
                .for_each(|(chunk, sums)| {
                    let range = chunk * 4096..chunk * 4096 + sums.len();
                    sums.fill(0.0);
                    for part in parts {
                        for (sum, g) in sums.iter_mut().zip(&part[range.clone()]) {
                            *sum += g;
                        }
                    }
                    for sum in sums {
                        *sum *= scale;
                    }
                });
            total_loss += losses.iter().sum::<f64>();
            let progress = (self.epochs_done as f64 + (batch_index + 1) as f64 / batches as f64)
                / self.settings.epochs.max(1) as f64;
            lr = self.learning_rate(progress);
            self.adam.step(
                &mut self.net,
                &self.gradient,
                lr,
                self.settings.weight_decay,
            );
        }
        self.epochs_done += 1;
        EpochReport {
            epoch: self.epochs_done,
            train_loss: total_loss / self.train.len().max(1) as f64,
            held_out_loss: self.held_out_loss(),
            lr,
        }
    }

    /// Writes a checkpoint: epochs done, the float network and Adam's state,
    /// so that [`Trainer::resume`] continues exactly where this run is.
    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        out.write_all(CHECKPOINT_MAGIC)?;
        out.write_all(&(self.epochs_done as u64).to_le_bytes())?;
        out.write_all(&self.adam.steps.to_le_bytes())?;
        out.write_all(&u64::from(self.net.layout.code()).to_le_bytes())?;
        for values in [&self.net.params, &self.adam.first, &self.adam.second] {
            for v in values.iter() {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        out.flush()
    }

    /// Continues from a checkpoint written by [`Trainer::save_checkpoint`].
    pub fn resume(&mut self, path: &Path) -> std::io::Result<()> {
        let bytes = std::fs::read(path)?;
        let size_of = |parameters: usize| CHECKPOINT_MAGIC.len() + 24 + 3 * 4 * parameters;
        if bytes.len() != size_of(self.net.params.len())
            || &bytes[..CHECKPOINT_MAGIC.len()] != CHECKPOINT_MAGIC
        {
            let why = match HIDDEN_SIZES
                .into_iter()
                .find(|&hidden| bytes.len() == size_of(parameters(hidden)))
            {
                Some(hidden) if bytes.starts_with(CHECKPOINT_MAGIC) => format!(
                    "it holds a network {hidden} wide and this run's is {} wide \
                     (--hidden {hidden} resumes it)",
                    self.net.hidden()
                ),
                _ => "it is not a checkpoint of this trainer".to_string(),
            };
            return Err(std::io::Error::other(format!(
                "cannot resume from {}: {why}",
                path.display()
            )));
        }
        let mut at = CHECKPOINT_MAGIC.len();
        let mut u64_field = || {
            let value = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            at += 8;
            value
        };
        self.epochs_done = u64_field() as usize;
        self.adam.steps = u64_field();
        let layout = u64_field();
        self.net.layout = u32::try_from(layout)
            .ok()
            .and_then(InputLayout::from_code)
            .ok_or_else(|| {
                std::io::Error::other(format!(
                    "{}: input layout {layout} is unknown",
                    path.display()
                ))
            })?;
        let floats = bytes[at..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
        let mut floats = floats.collect::<Vec<f32>>().into_iter();
        for values in [
            &mut self.net.params,
            &mut self.adam.first,
            &mut self.adam.second,
        ] {
            for v in values.iter_mut() {
                *v = floats.next().expect("sized above");
            }
        }
        Ok(())
    }
}

/// The checkpoint format's magic; the first format (`SESSACKP`) had no
/// input layout field.
const CHECKPOINT_MAGIC: &[u8; 8] = b"SESSACK2";
