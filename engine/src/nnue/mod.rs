//! The evaluation network (NNUE): a `(768 → H) × 2 → 1` perspective
//! network with SCReLU activation and output buckets, quantised to integers;
//! the first layer is `H` = 128, 256, 384 or 512 wide ([`HIDDEN_SIZES`]),
//! each width with code of its own fixed size ([`Layers`]).
//!
//! The 768 inputs are one per (piece colour relative to the perspective,
//! piece type, square) seen from each side: White's view as the board is,
//! Black's view mirrored top to bottom. A network of the king-mirrored
//! [`InputLayout`] also mirrors a view left to right while that side's king
//! stands on files e–h, so that its king is always on files a–d: the first
//! layer then learns king safety once rather than once per wing, at no cost
//! in weights, and a king crossing between files d and e recomputes that
//! side's view from scratch. Each side's view has its own
//! accumulator of `H` values (the first layer's output), updated as
//! moves are made ([`AccumulatorStack`]). The side to move's accumulator and
//! the other one, each through `clamp(x, 0, 1)²`, feed one output neuron,
//! whose weights and bias are chosen by the number of pieces on the board
//! ([`output_bucket`]): the first layer is shared, and the last judges an
//! opening, a middlegame and an endgame each with weights of its own.
//!
//! Quantisation: first-layer weights and biases are scaled by [`QA`],
//! output weights by [`QB`], the output bias by `QA · QB`; the network's
//! output times [`SCALE`] is the evaluation in centipawns. These constants
//! are the one place the trainer and the engine agree on; the file header
//! repeats them and a file that disagrees is refused.
//!
//! The network file (little-endian) is a 40-byte header (magic `SESSANET`,
//! format version, inputs, hidden size `H`, output buckets, QA, QB, scale and
//! input layout as `u32`s), the first-layer weights (`i16`, input-major),
//! the first-layer biases (`i16`), the output weights (`i16`, bucket by
//! bucket, each with the side-to-move half first), the output biases
//! (`i32`, one a bucket), and an FNV-1a 64-bit checksum of everything
//! before it.

mod accumulator;
mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use simd::Kernel;

use crate::score::Score;
use shakmaty::{Color, File, Piece, Square};
use std::fmt;
use std::sync::{Arc, LazyLock};

/// Inputs per perspective: 2 colours × 6 piece types × 64 squares.
pub const INPUTS: usize = 768;
/// Widths of the first layer (per perspective) this build plays: each has
/// its own fixed-size code, so a width costs nothing to the others.
pub const HIDDEN_SIZES: [usize; 4] = [128, 256, 384, 512];
/// The first layer's width of the shipped network and of the trainer's
/// networks unless told otherwise.
pub const DEFAULT_HIDDEN: usize = 256;
/// Output buckets: sets of output weights, chosen by the number of pieces.
pub const OUTPUT_BUCKETS: usize = 8;
/// Quantisation of the first layer: a weight of 1.0 is stored as `QA`.
pub const QA: i32 = 255;
/// Quantisation of the output weights: a weight of 1.0 is stored as `QB`.
pub const QB: i32 = 64;
/// Centipawns per unit of network output (the trainer's sigmoid scale).
pub const SCALE: i32 = 400;
/// Largest magnitude a trained weight may have, so that quantised SCReLU
/// products fit 16 bits: `QA · (CLIP · QB) < 2¹⁵`.
pub const WEIGHT_CLIP: f32 = 1.98;
/// Evaluations are kept within this many centipawns, clear of mate and
/// tablebase scores.
pub const EVAL_LIMIT: Score = 20_000;

/// Largest output weight for which `QA · w` fits 16 bits.
pub(crate) const MAX_OUTPUT_WEIGHT: i16 = (i16::MAX as i32 / QA) as i16;
/// The most values whose output terms, `QA² · w` summed over them, fit 32
/// bits: the kernels sum each block of this many values of a layer in 32
/// bits and add the blocks' sums in 64, so that a layer of any width is
/// summed exactly while one of at most this width is one block, as fast as
/// a plain 32-bit sum.
pub(crate) const SUM_BLOCK: usize = 256;
const _BLOCK_SUM_FITS_I32: () = assert!(
    (SUM_BLOCK as i64) * (QA as i64) * (QA as i64) * (MAX_OUTPUT_WEIGHT as i64) <= i32::MAX as i64
);
const MAGIC: [u8; 8] = *b"SESSANET";
/// Version 1 had a single output (no buckets); version 2 had no input layout
/// field (its inputs were always plain).
const FORMAT_VERSION: u32 = 3;
const HEADER_BYTES: usize = 40;

/// Size of a network file whose first layer is `hidden` wide.
pub const fn file_bytes(hidden: usize) -> usize {
    HEADER_BYTES
        + 2 * (INPUTS * hidden + hidden + OUTPUT_BUCKETS * 2 * hidden)
        + 4 * OUTPUT_BUCKETS
        + 8
}

/// The network shipped inside the binary.
pub const EMBEDDED_NAME: &str = "sessa-accc15cd6178.nnue";
static EMBEDDED_BYTES: &[u8] = include_bytes!("../../nets/sessa-accc15cd6178.nnue");
static EMBEDDED: LazyLock<Arc<Network>> = LazyLock::new(|| {
    Arc::new(Network::from_bytes(EMBEDDED_BYTES).expect("the embedded network is valid"))
});

/// A quantised network: its input layout and its weights.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// How the inputs place the pieces of each view.
    pub layout: InputLayout,
    /// The weights, of one of the widths in [`HIDDEN_SIZES`].
    pub weights: Weights,
}

// `Weights`, the accumulator stack's lines and the trainer have one case
// per width: a width added here must be added to them.
const _FOUR_WIDTHS: () = assert!(
    HIDDEN_SIZES.len() == 4
        && HIDDEN_SIZES[0] == 128
        && HIDDEN_SIZES[1] == 256
        && HIDDEN_SIZES[2] == 384
        && HIDDEN_SIZES[3] == 512
        && DEFAULT_HIDDEN == 256
);

/// A network's weights, by the width of its first layer.
#[derive(Clone, PartialEq, Eq)]
pub enum Weights {
    /// A first layer 128 wide (the networks of generations 1 to 4).
    Hidden128(Box<Layers<128>>),
    /// A first layer 256 wide (the shipped network, since generation 5).
    Hidden256(Box<Layers<256>>),
    /// A first layer 384 wide, for data that carries more than 256.
    Hidden384(Box<Layers<384>>),
    /// A first layer 512 wide, for data that carries more than 384.
    Hidden512(Box<Layers<512>>),
}

impl Weights {
    /// The weights of `layers`, for code written for any width `H` (one of
    /// [`HIDDEN_SIZES`], which is checked at compile time).
    pub fn from_layers<const H: usize>(layers: Box<Layers<H>>) -> Weights {
        const { assert!(H == 128 || H == 256 || H == 384 || H == 512) };
        let layers: Box<dyn std::any::Any> = layers;
        let same_width = "the layers are as wide as the case chosen by their width";
        match H {
            128 => Weights::Hidden128(layers.downcast().expect(same_width)),
            256 => Weights::Hidden256(layers.downcast().expect(same_width)),
            384 => Weights::Hidden384(layers.downcast().expect(same_width)),
            _ => Weights::Hidden512(layers.downcast().expect(same_width)),
        }
    }
}

/// The weights of a network whose first layer is `H` wide, ready for
/// inference.
#[derive(Clone, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Layers<const H: usize> {
    /// First-layer weights: one row of `H` per input.
    pub feature_weights: [[i16; H]; INPUTS],
    /// First-layer biases.
    pub feature_bias: [i16; H],
    /// Output weights of each bucket: for the side to move's accumulator,
    /// then the other's.
    pub output_weights: [[[i16; H]; 2]; OUTPUT_BUCKETS],
    /// Output bias of each bucket, scaled by `QA · QB`.
    pub output_bias: [i32; OUTPUT_BUCKETS],
}

/// How a network's inputs place the pieces of a view on its 64 squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum InputLayout {
    /// The perspective's side of the board at the bottom: Black's view is
    /// the board mirrored top to bottom, White's is the board as it is.
    Plain = 0,
    /// As `Plain`, and mirrored left to right while the perspective's own
    /// king stands on files e–h.
    KingMirrored = 1,
}

impl InputLayout {
    /// The layout's number in a file header.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The layout a file header's number stands for.
    pub fn from_code(code: u32) -> Option<InputLayout> {
        match code {
            0 => Some(InputLayout::Plain),
            1 => Some(InputLayout::KingMirrored),
            _ => None,
        }
    }

    /// The mask that, XORed into a square's index, gives the square in
    /// `perspective`'s view when that side's king stands on `king`.
    #[inline]
    pub fn orientation(self, perspective: Color, king: Square) -> usize {
        let top_to_bottom = match perspective {
            Color::White => 0,
            Color::Black => 56,
        };
        let left_to_right = match self {
            InputLayout::KingMirrored if king.file() >= File::E => 7,
            _ => 0,
        };
        top_to_bottom ^ left_to_right
    }

    /// The orientation of `perspective`'s view of `board` (a board without
    /// that side's king is seen as if the king stood on a1).
    #[inline]
    pub fn orientation_on(self, perspective: Color, board: &shakmaty::Board) -> usize {
        let king = match self {
            InputLayout::Plain => Square::A1,
            InputLayout::KingMirrored => board.king_of(perspective).unwrap_or(Square::A1),
        };
        self.orientation(perspective, king)
    }
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network({:016x}, {} wide)",
            fnv1a(&self.to_bytes()),
            self.hidden()
        )
    }
}

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkError {
    /// The file has the wrong size for this build's network shape.
    Size {
        /// Bytes expected.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The file does not start with the network magic.
    Magic,
    /// The header describes another format or network shape.
    Header(String),
    /// The checksum does not match: the file is damaged.
    Checksum,
    /// An output weight is too large for the 16-bit products of inference.
    OutputWeight(i16),
    /// The file cannot be read.
    Io(String),
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Size { expected, found } => write!(
                f,
                "not a Sessa network of this build: {found} bytes, {expected} expected"
            ),
            NetworkError::Magic => write!(f, "not a Sessa network file (bad magic)"),
            NetworkError::Header(why) => write!(f, "network header mismatch: {why}"),
            NetworkError::Checksum => write!(f, "network file is damaged (checksum mismatch)"),
            NetworkError::OutputWeight(w) => write!(
                f,
                "output weight {w} is out of range (at most {MAX_OUTPUT_WEIGHT} in size)"
            ),
            NetworkError::Io(why) => write!(f, "cannot read network file: {why}"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// FNV-1a, 64 bits: the file checksum and the source of net file names.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The index of `piece` on `square` among the inputs of `perspective`'s
/// view, whose squares are turned by `orientation` (from
/// [`InputLayout::orientation`]).
#[inline]
pub fn feature_index(
    perspective: Color,
    orientation: usize,
    piece: Piece,
    square: Square,
) -> usize {
    let relative_colour = usize::from(piece.color != perspective);
    relative_colour * 384 + (piece.role as usize - 1) * 64 + (square as usize ^ orientation)
}

/// The output bucket of a position with `pieces` pieces on the board (kings
/// included): 2 to 5 pieces use bucket 0, 30 to 32 bucket 7.
#[inline]
pub fn output_bucket(pieces: usize) -> usize {
    (pieces.saturating_sub(2) / 4).min(OUTPUT_BUCKETS - 1)
}

/// Reads `N` little-endian values of 2 bytes from `bytes` at `*at`.
fn read_i16s<const N: usize>(bytes: &[u8], at: &mut usize, into: &mut [i16; N]) {
    for (value, chunk) in into.iter_mut().zip(bytes[*at..*at + 2 * N].chunks_exact(2)) {
        *value = i16::from_le_bytes([chunk[0], chunk[1]]);
    }
    *at += 2 * N;
}

impl<const H: usize> Layers<H> {
    /// Weights of zeros on the heap, to be filled by a reader or a trainer's
    /// export (they are too large to build on a stack).
    pub fn zeroed() -> Box<Layers<H>> {
        let layout = std::alloc::Layout::new::<Layers<H>>();
        // SAFETY: `Layers` is plain integers, for which all-zero bytes are a
        // valid value, and the pointer comes from the global allocator with
        // `Layers`'s own layout, as `Box::from_raw` requires.
        unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<Layers<H>>();
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(ptr)
        }
    }

    /// Reads the weights of a file whose header has been checked.
    fn read(bytes: &[u8]) -> Result<Box<Layers<H>>, NetworkError> {
        let mut layers = Layers::<H>::zeroed();
        let mut at = HEADER_BYTES;
        for row in layers.feature_weights.iter_mut() {
            read_i16s(bytes, &mut at, row);
        }
        read_i16s(bytes, &mut at, &mut layers.feature_bias);
        for half in layers.output_weights.iter_mut().flatten() {
            read_i16s(bytes, &mut at, half);
        }
        for bias in layers.output_bias.iter_mut() {
            *bias = i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
            at += 4;
        }
        if let Some(&w) = layers
            .output_weights
            .iter()
            .flatten()
            .flatten()
            .find(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT as u16)
        {
            return Err(NetworkError::OutputWeight(w));
        }
        Ok(layers)
    }

    /// Appends the weights in file order.
    fn write(&self, bytes: &mut Vec<u8>) {
        let rows = self
            .feature_weights
            .iter()
            .chain(std::iter::once(&self.feature_bias))
            .chain(self.output_weights.iter().flatten());
        for row in rows {
            for value in row {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        for bias in self.output_bias {
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
    }

    /// The evaluation of an accumulator pair of a position with `pieces`
    /// pieces on the board, in centipawns from the side to move's point of
    /// view.
    #[inline]
    pub fn evaluate(
        &self,
        accumulator: &Accumulator<H>,
        side: Color,
        pieces: usize,
        kernel: Kernel,
    ) -> Score {
        let bucket = output_bucket(pieces);
        let [ours, theirs] = &self.output_weights[bucket];
        let (us, them) = accumulator.views(side);
        let sum = kernel.screlu_dot(us, ours) + kernel.screlu_dot(them, theirs);
        let output = (sum / i64::from(QA) + i64::from(self.output_bias[bucket])) * i64::from(SCALE)
            / i64::from(QA * QB);
        (output as Score).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The evaluation of `board` with `side` to move, from accumulators
    /// computed from scratch in `layout`.
    fn evaluate_board(
        &self,
        layout: InputLayout,
        board: &shakmaty::Board,
        side: Color,
        kernel: Kernel,
    ) -> Score {
        let accumulator = Accumulator::refresh(layout, self, board, kernel);
        self.evaluate(&accumulator, side, board.occupied().count(), kernel)
    }
}

impl Network {
    /// The network shipped inside the binary.
    pub fn embedded() -> Arc<Network> {
        Arc::clone(&EMBEDDED)
    }

    /// Width of the first layer (per perspective).
    pub fn hidden(&self) -> usize {
        match self.weights {
            Weights::Hidden128(_) => 128,
            Weights::Hidden256(_) => 256,
            Weights::Hidden384(_) => 384,
            Weights::Hidden512(_) => 512,
        }
    }

    /// The network's shape in words, for messages (in ASCII, as UCI
    /// output should be): for example `768->128x2->1, plain inputs`.
    pub fn shape(&self) -> String {
        let inputs = match self.layout {
            InputLayout::Plain => "plain",
            InputLayout::KingMirrored => "king-mirrored",
        };
        format!("{INPUTS}->{}x2->1, {inputs} inputs", self.hidden())
    }

    /// Reads a network file, checking its format version, width, size,
    /// header and checksum (the version and the width first, so that a file
    /// of another version or width is named as such rather than as one of
    /// the wrong size).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let size_error = |expected| NetworkError::Size {
            expected,
            found: bytes.len(),
        };
        if bytes.len() < HEADER_BYTES {
            return Err(size_error(file_bytes(DEFAULT_HIDDEN)));
        }
        if bytes[..8] != MAGIC {
            return Err(NetworkError::Magic);
        }
        let field = |i: usize| {
            let at = 8 + 4 * i;
            u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
        };
        if field(0) != FORMAT_VERSION {
            return Err(NetworkError::Header(format!(
                "format version {} (this build reads version {FORMAT_VERSION} only; \
                 bench/scripts/add_input_layout.py converts a version 2 file)",
                field(0)
            )));
        }
        let hidden = field(2) as usize;
        if !HIDDEN_SIZES.contains(&hidden) {
            return Err(NetworkError::Header(format!(
                "hidden size is {hidden}, this build plays {HIDDEN_SIZES:?}"
            )));
        }
        let expected_bytes = file_bytes(hidden);
        if bytes.len() != expected_bytes {
            return Err(size_error(expected_bytes));
        }
        let (body, checksum) = bytes.split_at(expected_bytes - 8);
        if fnv1a(body).to_le_bytes() != checksum {
            return Err(NetworkError::Checksum);
        }
        let expected = [
            ("inputs", 1, INPUTS as u32),
            ("output buckets", 3, OUTPUT_BUCKETS as u32),
            ("QA", 4, QA as u32),
            ("QB", 5, QB as u32),
            ("scale", 6, SCALE as u32),
        ];
        for (name, i, wanted) in expected {
            let found = field(i);
            if found != wanted {
                return Err(NetworkError::Header(format!(
                    "{name} is {found}, this build needs {wanted}"
                )));
            }
        }
        let layout = InputLayout::from_code(field(7))
            .ok_or_else(|| NetworkError::Header(format!("input layout {} is unknown", field(7))))?;
        let weights = match hidden {
            128 => Weights::Hidden128(Layers::read(bytes)?),
            256 => Weights::Hidden256(Layers::read(bytes)?),
            384 => Weights::Hidden384(Layers::read(bytes)?),
            512 => Weights::Hidden512(Layers::read(bytes)?),
            _ => unreachable!("the width was checked against HIDDEN_SIZES"),
        };
        Ok(Network { layout, weights })
    }

    /// Reads a network file from disk.
    pub fn load(path: &std::path::Path) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path).map_err(|e| NetworkError::Io(e.to_string()))?;
        Network::from_bytes(&bytes)
    }

    /// The network as a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(file_bytes(self.hidden()));
        bytes.extend_from_slice(&MAGIC);
        for value in [
            FORMAT_VERSION,
            INPUTS as u32,
            self.hidden() as u32,
            OUTPUT_BUCKETS as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            self.layout.code(),
        ] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        match &self.weights {
            Weights::Hidden128(layers) => layers.write(&mut bytes),
            Weights::Hidden256(layers) => layers.write(&mut bytes),
            Weights::Hidden384(layers) => layers.write(&mut bytes),
            Weights::Hidden512(layers) => layers.write(&mut bytes),
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// The file name a network ships under: `sessa-` and the first 12 hex
    /// digits of its file's FNV-1a hash.
    pub fn file_name(&self) -> String {
        format!("sessa-{:012x}.nnue", fnv1a(&self.to_bytes()) >> 16)
    }

    /// Evaluates `board` from scratch (no incremental state) with `side` to
    /// move, in centipawns from that side's point of view.
    pub fn evaluate_board(&self, board: &shakmaty::Board, side: Color, kernel: Kernel) -> Score {
        let layout = self.layout;
        match &self.weights {
            Weights::Hidden128(layers) => layers.evaluate_board(layout, board, side, kernel),
            Weights::Hidden256(layers) => layers.evaluate_board(layout, board, side, kernel),
            Weights::Hidden384(layers) => layers.evaluate_board(layout, board, side, kernel),
            Weights::Hidden512(layers) => layers.evaluate_board(layout, board, side, kernel),
        }
    }

    /// Evaluates `pos` from scratch (no incremental state), side to move's view.
    pub fn evaluate_position(&self, pos: &shakmaty::Chess) -> Score {
        use shakmaty::Position;
        self.evaluate_board(pos.board(), pos.turn(), Kernel::detect())
    }
}

/// The first 128 lanes of a 256-wide `net` (its first layer's weights and
/// biases and their output weights): a 128-wide network that evaluates
/// sensibly, though not as `net` does, for the tests of the 128-wide code.
#[cfg(test)]
pub(crate) fn narrowed(net: &Network) -> Network {
    let Weights::Hidden256(wide) = &net.weights else {
        panic!("narrowing a network that is not 256 wide");
    };
    let mut narrow = Layers::<128>::zeroed();
    for (row, wide_row) in narrow.feature_weights.iter_mut().zip(&wide.feature_weights) {
        row.copy_from_slice(&wide_row[..128]);
    }
    narrow
        .feature_bias
        .copy_from_slice(&wide.feature_bias[..128]);
    for (halves, wide_halves) in narrow.output_weights.iter_mut().zip(&wide.output_weights) {
        for (half, wide_half) in halves.iter_mut().zip(wide_halves) {
            half.copy_from_slice(&wide_half[..128]);
        }
    }
    narrow.output_bias = wide.output_bias;
    Network {
        layout: net.layout,
        weights: Weights::Hidden128(narrow),
    }
}

/// The built-in network narrowed to 128 lanes ([`narrowed`]).
#[cfg(test)]
pub(crate) fn narrow_test_network() -> Network {
    narrowed(&Network::embedded())
}

/// A small deterministic generator for the tests' pseudo-random networks
/// and games.
#[cfg(test)]
pub(crate) struct Lcg(pub u64);

#[cfg(test)]
impl Lcg {
    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }

    /// A number in `-limit..=limit`.
    pub(crate) fn within(&mut self, limit: i16) -> i16 {
        self.below(2 * limit as usize + 1) as i16 - limit
    }
}

/// `net` (128 wide) widened to `W`: its first layer's weights in the first
/// 128 lanes, pseudo-random ones in the others, whose output weights are
/// zero, so that it evaluates exactly as `net` does while every lane is
/// updated (a check of the wider code against the 128-wide one).
#[cfg(test)]
pub(crate) fn widened<const W: usize>(net: &Network) -> Network {
    Network {
        layout: net.layout,
        weights: Weights::from_layers(widened_layers::<W>(net)),
    }
}

/// The weights of [`widened`], to edit before they become a network's.
#[cfg(test)]
pub(crate) fn widened_layers<const W: usize>(net: &Network) -> Box<Layers<W>> {
    let Weights::Hidden128(narrow) = &net.weights else {
        panic!("widening a network that is not 128 wide");
    };
    let mut wide = Layers::<W>::zeroed();
    let mut noise = Lcg(0x9e37_79b9_7f4a_7c15);
    for (wide_row, row) in wide.feature_weights.iter_mut().zip(&narrow.feature_weights) {
        wide_row[..128].copy_from_slice(row);
        wide_row[128..]
            .iter_mut()
            .for_each(|w| *w = noise.within(60));
    }
    wide.feature_bias[..128].copy_from_slice(&narrow.feature_bias);
    wide.feature_bias[128..]
        .iter_mut()
        .for_each(|b| *b = noise.within(60));
    for (wide_halves, halves) in wide.output_weights.iter_mut().zip(&narrow.output_weights) {
        for (wide_half, half) in wide_halves.iter_mut().zip(halves) {
            wide_half[..128].copy_from_slice(half);
        }
    }
    wide.output_bias = narrow.output_bias;
    wide
}

/// A network `H` wide of pseudo-random weights: first-layer weights and
/// biases spread so that the accumulators hold values below zero, between
/// zero and `QA` and above, and output weights anywhere a file allows, so
/// that every lane counts (a check of the wider code on its own).
#[cfg(test)]
pub(crate) fn random_network<const H: usize>(seed: u64, layout: InputLayout) -> Network {
    let mut rng = Lcg(seed);
    let mut layers = Layers::<H>::zeroed();
    for w in layers.feature_weights.iter_mut().flatten() {
        *w = rng.within(QA as i16 / 4);
    }
    for b in layers.feature_bias.iter_mut() {
        *b = rng.within(QA as i16);
    }
    for w in layers.output_weights.iter_mut().flatten().flatten() {
        *w = rng.within(MAX_OUTPUT_WEIGHT);
    }
    for b in layers.output_bias.iter_mut() {
        *b = i32::from(rng.within(QA as i16)) * QB;
    }
    Network {
        layout,
        weights: Weights::from_layers(layers),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Role};

    #[test]
    fn feature_indices_mirror_between_views() {
        let white_pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let black_pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        let plain = InputLayout::Plain;
        let white = plain.orientation(Color::White, Square::E1);
        let black = plain.orientation(Color::Black, Square::E8);
        assert_eq!(
            feature_index(Color::White, white, white_pawn, Square::E2),
            12
        );
        assert_eq!(
            feature_index(Color::Black, black, black_pawn, Square::E7),
            12
        );
        assert_eq!(
            feature_index(Color::White, white, black_pawn, Square::E7),
            384 + 52
        );
        let black_king = Piece {
            color: Color::Black,
            role: Role::King,
        };
        assert_eq!(
            feature_index(Color::White, white, black_king, Square::H8),
            INPUTS - 1
        );
        // The plain layout ignores where the kings stand.
        assert_eq!(plain.orientation(Color::White, Square::A1), white);
        assert_eq!(plain.orientation(Color::Black, Square::A8), black);
    }

    #[test]
    fn king_mirrored_views_keep_the_king_on_files_a_to_d() {
        let layout = InputLayout::KingMirrored;
        assert_eq!(layout.orientation(Color::White, Square::D1), 0);
        assert_eq!(layout.orientation(Color::White, Square::E1), 7);
        assert_eq!(layout.orientation(Color::White, Square::H5), 7);
        assert_eq!(layout.orientation(Color::Black, Square::A8), 56);
        assert_eq!(layout.orientation(Color::Black, Square::G8), 63);
        let white_king = Piece {
            color: Color::White,
            role: Role::King,
        };
        // A king on g1 is seen on b1, one on c8 (Black's view) on c1.
        assert_eq!(
            feature_index(Color::White, 7, white_king, Square::G1),
            5 * 64 + Square::B1 as usize
        );
        let black_king = Piece {
            color: Color::Black,
            role: Role::King,
        };
        assert_eq!(
            feature_index(Color::Black, 56, black_king, Square::C8),
            5 * 64 + Square::C1 as usize
        );
    }

    /// The embedded network's weights read as a king-mirrored network: not
    /// trained that way, but enough to check the arithmetic of the layout.
    fn king_mirrored_network() -> Network {
        let mut net = (*Network::embedded()).clone();
        net.layout = InputLayout::KingMirrored;
        net
    }

    /// The weights of a 256-wide network (the built-in one), to edit.
    fn wide_mut(net: &mut Network) -> &mut Layers<256> {
        let Weights::Hidden256(layers) = &mut net.weights else {
            panic!("a network of another width than 256");
        };
        layers
    }

    #[test]
    fn both_layouts_round_trip_through_a_file() {
        let net = king_mirrored_network();
        let read = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(read.layout, InputLayout::KingMirrored);
        assert_eq!(read, net);
        assert_ne!(net.file_name(), Network::embedded().file_name());
    }

    /// `bytes` with the checksum recomputed after an edit.
    fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
        let end = bytes.len() - 8;
        let checksum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn files_of_other_versions_and_unknown_layouts_are_refused() {
        // A version 2 file: the same header without the layout field.
        let mut old = Network::embedded().to_bytes();
        old[8..12].copy_from_slice(&2u32.to_le_bytes());
        old.drain(36..40);
        let old = with_checksum(old);
        match Network::from_bytes(&old) {
            Err(NetworkError::Header(why)) => {
                assert!(why.contains("format version 2"), "{why}")
            }
            other => panic!("a version 2 file gave {other:?}"),
        }
        let mut unknown = Network::embedded().to_bytes();
        unknown[36..40].copy_from_slice(&9u32.to_le_bytes());
        match Network::from_bytes(&with_checksum(unknown)) {
            Err(NetworkError::Header(why)) => assert!(why.contains("layout 9"), "{why}"),
            other => panic!("an unknown layout gave {other:?}"),
        }
    }

    /// A 128-wide network widened to `W` round trips through a file,
    /// evaluates as the 128-wide one (its extra lanes have output weights of
    /// zero) until an output weight of its last lane is set.
    fn a_wider_network_round_trips_and_reads_every_lane_at<const W: usize>() {
        let narrow = narrow_test_network();
        let wide = widened::<W>(&narrow);
        assert_eq!(wide.hidden(), W);
        assert_eq!(wide.shape(), format!("768->{W}x2->1, plain inputs"));
        assert_eq!(narrow.shape(), "768->128x2->1, plain inputs");
        let bytes = wide.to_bytes();
        assert_eq!(bytes.len(), file_bytes(W));
        assert_eq!(Network::from_bytes(&bytes).unwrap(), wide);
        // The extra lanes have output weights of zero: the same evaluations.
        for fen in crate::bench::BENCH_POSITIONS {
            let pos = position(fen);
            assert_eq!(
                wide.evaluate_position(&pos),
                narrow.evaluate_position(&pos),
                "{fen}, {W} wide"
            );
        }
        // An output weight in the last lane moves the evaluation.
        let mut layers = widened_layers::<W>(&narrow);
        for half in layers.output_weights.iter_mut().flatten() {
            half[W - 1] = MAX_OUTPUT_WEIGHT;
        }
        let moved_net = Network {
            layout: wide.layout,
            weights: Weights::from_layers(layers),
        };
        let moved = crate::bench::BENCH_POSITIONS
            .iter()
            .filter(|fen| {
                let pos = position(fen);
                moved_net.evaluate_position(&pos) != narrow.evaluate_position(&pos)
            })
            .count();
        assert!(moved > 0, "{W} wide");
    }

    #[test]
    fn a_wider_network_round_trips_and_reads_every_lane() {
        a_wider_network_round_trips_and_reads_every_lane_at::<256>();
        a_wider_network_round_trips_and_reads_every_lane_at::<384>();
        a_wider_network_round_trips_and_reads_every_lane_at::<512>();
    }

    /// A random network `H` wide round trips through a file, and every
    /// kernel evaluates it as the portable one does.
    fn a_random_network_round_trips_at<const H: usize>() {
        for layout in [InputLayout::Plain, InputLayout::KingMirrored] {
            let net = random_network::<H>(H as u64, layout);
            assert_eq!(net.hidden(), H);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), file_bytes(H));
            let read = Network::from_bytes(&bytes).unwrap();
            assert_eq!(read, net);
            assert_eq!(read.to_bytes(), bytes);
            for fen in crate::bench::BENCH_POSITIONS {
                let pos = position(fen);
                let portable = net.evaluate_board(pos.board(), pos.turn(), Kernel::Portable);
                for kernel in Kernel::available() {
                    assert_eq!(
                        read.evaluate_board(pos.board(), pos.turn(), kernel),
                        portable,
                        "{fen}, {H} wide, {layout:?}, {kernel:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn random_networks_of_every_width_round_trip_through_a_file() {
        a_random_network_round_trips_at::<128>();
        a_random_network_round_trips_at::<256>();
        a_random_network_round_trips_at::<384>();
        a_random_network_round_trips_at::<512>();
    }

    #[test]
    fn headers_of_another_shape_are_refused_by_name() {
        for (at, name) in [
            (12, "inputs"),
            (20, "output buckets"),
            (24, "QA"),
            (28, "QB"),
            (32, "scale"),
        ] {
            let mut bytes = Network::embedded().to_bytes();
            bytes[at] ^= 1;
            match Network::from_bytes(&with_checksum(bytes)) {
                Err(NetworkError::Header(why)) => {
                    assert!(why.starts_with(&format!("{name} is ")), "{why}")
                }
                other => panic!("a changed {name} gave {other:?}"),
            }
        }
    }

    #[test]
    fn widths_the_build_does_not_play_are_refused() {
        let mut bytes = Network::embedded().to_bytes();
        bytes[16..20].copy_from_slice(&192u32.to_le_bytes());
        match Network::from_bytes(&with_checksum(bytes)) {
            Err(NetworkError::Header(why)) => assert!(why.contains("hidden size is 192"), "{why}"),
            other => panic!("a 192-wide header gave {other:?}"),
        }
        // A 128-wide header on a file of 256-wide size, and the reverse.
        for (net, header_width) in [
            (Network::embedded(), 128u32),
            (Arc::new(narrow_test_network()), 256),
        ] {
            let mut bytes = net.to_bytes();
            bytes[16..20].copy_from_slice(&header_width.to_le_bytes());
            assert_eq!(
                Network::from_bytes(&with_checksum(bytes)),
                Err(NetworkError::Size {
                    expected: file_bytes(header_width as usize),
                    found: file_bytes(net.hidden())
                })
            );
        }
    }

    #[test]
    fn the_embedded_network_round_trips() {
        let net = Network::embedded();
        let bytes = net.to_bytes();
        assert_eq!(bytes, EMBEDDED_BYTES);
        assert_eq!(net.file_name(), EMBEDDED_NAME);
    }

    #[test]
    fn damaged_files_are_refused() {
        let mut bytes = Network::embedded().to_bytes();
        assert!(matches!(
            Network::from_bytes(&bytes[..100]),
            Err(NetworkError::Size { .. })
        ));
        bytes[1000] ^= 1;
        assert_eq!(Network::from_bytes(&bytes), Err(NetworkError::Checksum));
        let mut other = Network::embedded().to_bytes();
        other[0] = b'X';
        assert_eq!(Network::from_bytes(&other), Err(NetworkError::Magic));
        let mut shape = Network::embedded().to_bytes();
        shape[16] ^= 1;
        assert!(matches!(
            Network::from_bytes(&with_checksum(shape)),
            Err(NetworkError::Header(_))
        ));
    }

    /// `fen` with colours swapped and the board mirrored top to bottom.
    fn colour_flipped(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        let board: Vec<String> = fields[0]
            .split('/')
            .rev()
            .map(|rank| rank.chars().map(swap_case).collect())
            .collect();
        let side = if fields[1] == "w" { "b" } else { "w" };
        format!("{} {side} - - 0 1", board.join("/"))
    }

    #[test]
    fn colour_flipped_positions_evaluate_the_same() {
        let net = Network::embedded();
        for fen in crate::bench::BENCH_POSITIONS {
            let pos: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            let flipped: Chess = colour_flipped(fen)
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
                .unwrap();
            assert_eq!(
                net.evaluate_position(&pos),
                net.evaluate_position(&flipped),
                "{fen}"
            );
        }
    }

    /// `fen` mirrored left to right (files a and h swapped), without
    /// castling rights or an en passant square.
    fn left_right_mirrored(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let board: Vec<String> = fields[0]
            .split('/')
            .map(|rank| rank.chars().rev().collect())
            .collect();
        format!("{} {} - - 0 1", board.join("/"), fields[1])
    }

    fn position(fen: &str) -> Chess {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn king_mirrored_networks_see_a_position_and_its_mirror_image_alike() {
        let mirrored_net = king_mirrored_network();
        let plain_net = Network::embedded();
        let mut plain_differs = 0;
        for fen in crate::bench::BENCH_POSITIONS {
            let fields: Vec<&str> = fen.split_whitespace().collect();
            let pos = position(&format!("{} {} - - 0 1", fields[0], fields[1]));
            let mirror = position(&left_right_mirrored(fen));
            assert_eq!(
                mirrored_net.evaluate_position(&pos),
                mirrored_net.evaluate_position(&mirror),
                "{fen}"
            );
            plain_differs += usize::from(
                plain_net.evaluate_position(&pos) != plain_net.evaluate_position(&mirror),
            );
        }
        // The plain layout tells them apart: the check above could fail.
        assert!(plain_differs > 0);
    }

    #[test]
    fn oversized_output_weights_are_refused() {
        let mut net = (*Network::embedded()).clone();
        wide_mut(&mut net).output_weights[3][1][5] = MAX_OUTPUT_WEIGHT + 1;
        assert_eq!(
            Network::from_bytes(&net.to_bytes()),
            Err(NetworkError::OutputWeight(MAX_OUTPUT_WEIGHT + 1))
        );
    }

    #[test]
    fn output_buckets_split_the_piece_counts_evenly() {
        assert_eq!(output_bucket(2), 0);
        assert_eq!(output_bucket(5), 0);
        assert_eq!(output_bucket(6), 1);
        assert_eq!(output_bucket(29), 6);
        assert_eq!(output_bucket(30), 7);
        assert_eq!(output_bucket(32), OUTPUT_BUCKETS - 1);
        // Positions set up with extra material stay in the last bucket.
        assert_eq!(output_bucket(40), OUTPUT_BUCKETS - 1);
    }

    #[test]
    fn each_bucket_has_its_own_output() {
        let pos = Chess::default();
        let base = Network::embedded();
        let mut other = (*base).clone();
        // Only the bucket of positions with 6 to 9 pieces is moved.
        wide_mut(&mut other).output_bias[1] += 100 * QA * QB / SCALE;
        assert_eq!(other.evaluate_position(&pos), base.evaluate_position(&pos));
        let endgame: Chess = "8/4k3/4p3/8/3PK3/8/5N2/6R1 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        // Exact but for the rounding toward zero of the last division.
        let moved = other.evaluate_position(&endgame) - base.evaluate_position(&endgame);
        assert!((99..=101).contains(&moved), "moved by {moved}");
    }

    #[test]
    fn the_start_position_is_roughly_level() {
        let score = Network::embedded().evaluate_position(&Chess::default());
        assert!(score.abs() < 100, "start position scores {score}");
        assert_eq!(Chess::default().turn(), Color::White);
    }
}
