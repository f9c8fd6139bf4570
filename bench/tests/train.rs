//! The network trainer on a small committed fixture: 4096 positions of
//! `datagen` self-play (chunk 0 of `datagen --seed 1`, default settings).

use bench::train::{
    Features, FloatNetwork, Settings, Trainer, load_records, mean_abs_eval, mean_loss, scale_output,
};
use sessa_engine::nnue::{HIDDEN_SIZES, InputLayout, Kernel, Network, SCALE, Weights, file_bytes};
use shakmaty::{Board, Color, Piece, Role, Square};
use std::path::PathBuf;

fn fixture() -> Vec<bulletformat::ChessBoard> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/selfplay-4096.bin");
    let records = load_records(&[path]).expect("the fixture loads");
    assert_eq!(records.len(), 4096);
    records
}

fn settings(epochs: usize) -> Settings {
    Settings {
        epochs,
        batch_size: 256,
        lr: 0.002,
        lr_end: 0.0002,
        wdl_weight: 0.5,
        held_out: 0.25,
        seed: 7,
        weight_decay: 0.0,
        mirror: false,
        layout: InputLayout::Plain,
        // 128 wide, not the default 256: the fixture's few games suit the
        // narrower network, and the wider cases ask for their width.
        hidden: 128,
    }
}

#[test]
fn held_out_loss_falls() {
    let mut trainer = Trainer::new(fixture(), settings(20));
    let (train, held_out) = trainer.sizes();
    // One block of 1024 consecutive records of the four is held out.
    assert_eq!((train, held_out), (3072, 1024));
    let before = trainer.held_out_loss();
    let mut last = before;
    for _ in 0..20 {
        let report = trainer.epoch();
        assert!(report.train_loss.is_finite());
        last = report.held_out_loss;
    }
    // The held-out games were never trained on: with so few games the
    // loss on them falls by about a quarter (on the training games, to a
    // fiftieth) but must fall.
    assert!(
        last < before * 0.85,
        "held-out loss went from {before} to {last}"
    );
}

#[test]
fn a_checkpoint_resumes_the_same_run() {
    let dir = std::env::temp_dir().join(format!("sessa-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("epoch-001.ckpt");
    let mut straight = Trainer::new(fixture(), settings(2));
    straight.epoch();
    straight.save_checkpoint(&checkpoint).unwrap();
    straight.epoch();
    let mut resumed = Trainer::new(fixture(), settings(2));
    resumed.resume(&checkpoint).unwrap();
    assert_eq!(resumed.epochs_done, 1);
    resumed.epoch();
    assert_eq!(resumed.net, straight.net);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The board a record describes, side to move as White (records are side to
/// move relative, and the network's two views make that the same position).
fn board_of(record: &bulletformat::ChessBoard) -> Board {
    let mut board = Board::empty();
    for (piece, square) in *record {
        let color = if piece >> 3 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = Role::ALL[usize::from(piece & 7)];
        board.set_piece_at(Square::new(u32::from(square)), Piece { color, role });
    }
    board
}

/// The engine's integer evaluation of a board (side to move White), from a
/// fresh accumulator.
fn engine_evaluation(net: &Network, board: &Board, kernel: Kernel) -> i32 {
    net.evaluate_board(board, Color::White, kernel)
}

#[test]
fn the_quantised_network_agrees_with_the_float_one() {
    for hidden in HIDDEN_SIZES {
        for layout in [InputLayout::Plain, InputLayout::KingMirrored] {
            quantised_agrees_with_float(layout, hidden);
        }
    }
}

fn quantised_agrees_with_float(layout: InputLayout, hidden: usize) {
    let records = fixture();
    let mut trainer = Trainer::new(
        records.clone(),
        Settings {
            layout,
            hidden,
            ..settings(2)
        },
    );
    trainer.epoch();
    trainer.epoch();
    let float = &trainer.net;
    let quantised = float.quantise();
    assert_eq!(quantised.layout, layout);
    assert_eq!(quantised.hidden(), hidden);
    let dequantised = FloatNetwork::from_quantised(&quantised);
    assert_eq!(dequantised.layout, layout);
    assert_eq!(dequantised.hidden(), hidden);
    let kernel = Kernel::detect();
    let mut rounding_error = 0.0f32;
    let mut checked = 0;
    for record in records.iter().step_by(8) {
        let features = Features::of(record, layout);
        let board = board_of(record);
        let engine = engine_evaluation(&quantised, &board, kernel) as f32;
        // With the very same (rounded) weights, the engine's integers differ
        // from floats only by its two truncating divisions.
        let exact = dequantised.forward(&features) * SCALE as f32;
        assert!(
            (engine - exact).abs() <= 1.5,
            "engine {engine} against {exact} with the same weights ({layout:?}, {hidden} wide)"
        );
        rounding_error += (engine - float.forward(&features) * SCALE as f32).abs();
        checked += 1;
    }
    // Rounding the weights to 1/255 (first layer) and 1/64 (output) moves
    // evaluations by a few centipawns on average.
    let mean = rounding_error / checked as f32;
    assert!(mean < 5.0, "mean quantisation error {mean} cp");
    assert!(mean > 0.0, "the rounding cannot be exact everywhere");
}

#[test]
fn a_random_network_is_not_all_zero() {
    for hidden in HIDDEN_SIZES {
        let net = FloatNetwork::random(1, InputLayout::Plain, hidden);
        assert!(net.params.iter().any(|&w| w != 0.0));
        // As many parameters as a network file of that width has values
        // (the file: a 40-byte header, 16-bit weights and biases, 8 output
        // biases of 32 bits, an 8-byte checksum).
        let file_values = (file_bytes(hidden) - 40 - 8 - 8 * 4) / 2 + 8;
        assert_eq!(net.params.len(), file_values);
        assert_eq!(net, FloatNetwork::random(1, InputLayout::Plain, hidden));
    }
}

#[test]
fn a_wider_network_trains_and_keeps_its_width_through_a_checkpoint() {
    for hidden in HIDDEN_SIZES.into_iter().filter(|&hidden| hidden > 128) {
        wider_network_trains_and_resumes(hidden);
    }
}

/// A run `hidden` wide lowers the loss in an epoch, resumes from its
/// checkpoint exactly, and a 128-wide run refuses that checkpoint.
fn wider_network_trains_and_resumes(hidden: usize) {
    let dir =
        std::env::temp_dir().join(format!("sessa-train-wide-{hidden}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("epoch-001.ckpt");
    let wide = Settings {
        hidden,
        ..settings(2)
    };
    let records = fixture();
    let mut trainer = Trainer::new(records.clone(), wide.clone());
    let before = mean_loss(&trainer.net, &records, 0.5);
    trainer.epoch();
    let after = mean_loss(&trainer.net, &records, 0.5);
    assert!(
        after < before,
        "loss over the fixture {before} before, {after} after ({hidden} wide)"
    );
    trainer.save_checkpoint(&checkpoint).unwrap();
    let mut resumed = Trainer::new(fixture(), wide);
    resumed.resume(&checkpoint).unwrap();
    assert_eq!(resumed.epochs_done, 1);
    assert_eq!(resumed.net, trainer.net);
    // The optimiser's state came back too: the next epoch is the same.
    trainer.epoch();
    resumed.epoch();
    assert_eq!(resumed.net, trainer.net);
    assert_eq!(trainer.net.quantise().hidden(), hidden);
    // A run set up 128 wide refuses the wider checkpoint.
    let mut narrow = Trainer::new(fixture(), settings(2));
    let error = narrow.resume(&checkpoint).unwrap_err().to_string();
    assert!(
        error.contains(&format!(
            "a network {hidden} wide and this run's is 128 wide"
        )),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scaling_the_output_scales_every_evaluation() {
    let records = fixture();
    let mut trainer = Trainer::new(records.clone(), settings(2));
    trainer.epoch();
    let net = trainer.net.quantise();

    let mut unchanged = net.clone();
    scale_output(&mut unchanged, 1.0);
    assert_eq!(unchanged.to_bytes(), net.to_bytes());

    // Doubling is exact on the integers, so every evaluation doubles but for
    // the engine's truncating divisions.
    let mut doubled = net.clone();
    scale_output(&mut doubled, 2.0);
    let (Weights::Hidden128(doubled_layers), Weights::Hidden128(layers)) =
        (&doubled.weights, &net.weights)
    else {
        panic!("the tests' width is 128");
    };
    assert_eq!(doubled_layers.feature_weights, layers.feature_weights);
    assert_eq!(doubled_layers.feature_bias, layers.feature_bias);
    let kernel = Kernel::detect();
    let mut nonzero = 0;
    for record in records.iter().step_by(8) {
        let board = board_of(record);
        let (single, double) = (
            engine_evaluation(&net, &board, kernel),
            engine_evaluation(&doubled, &board, kernel),
        );
        assert!(
            (double - 2 * single).abs() <= 2,
            "{single} cp doubled is {double} cp"
        );
        nonzero += usize::from(single != 0);
    }
    assert!(nonzero > 100, "the evaluations are not all zero");

    let ratio = mean_abs_eval(&FloatNetwork::from_quantised(&doubled), &records, 1)
        / mean_abs_eval(&FloatNetwork::from_quantised(&net), &records, 1);
    assert!((ratio - 2.0).abs() < 1e-3, "scale ratio {ratio}");
}

/// A record's mirror image (files a and h swapped), built square by square.
fn mirror_record(record: &bulletformat::ChessBoard) -> bulletformat::ChessBoard {
    let mut bitboards = [0u64; 8];
    for (piece, square) in *record {
        let bit = 1u64 << (square ^ 7);
        bitboards[usize::from(piece >> 3)] |= bit;
        bitboards[2 + usize::from(piece & 7)] |= bit;
    }
    bulletformat::ChessBoard::from_raw(bitboards, 0, record.score, f32::from(record.result) / 2.0)
        .expect("a mirrored record is a valid record")
}

/// Mean difference in centipawns between the evaluations of the records and
/// of their mirror images.
fn mirror_asymmetry(net: &FloatNetwork, records: &[bulletformat::ChessBoard]) -> f32 {
    let total: f32 = records
        .iter()
        .map(|r| {
            (net.forward(&net.features(r)) - net.forward(&net.features(&mirror_record(r)))).abs()
        })
        .sum();
    total * SCALE as f32 / records.len() as f32
}

#[test]
fn training_on_mirror_images_makes_the_network_file_symmetric() {
    let records = fixture();
    let trained = |mirror: bool| {
        let mut trainer = Trainer::new(
            records.clone(),
            Settings {
                mirror,
                ..settings(4)
            },
        );
        for _ in 0..4 {
            trainer.epoch();
        }
        trainer.net
    };
    let plain_net = trained(false);
    for record in records.iter().step_by(16) {
        let direct = plain_net.forward(&Features::mirrored(record, InputLayout::Plain));
        let rebuilt = plain_net.forward(&Features::of(&mirror_record(record), InputLayout::Plain));
        assert!(
            (direct - rebuilt).abs() < 1e-5,
            "{direct} against {rebuilt}"
        );
    }
    let plain = mirror_asymmetry(&plain_net, &records);
    let mirrored = mirror_asymmetry(&trained(true), &records);
    assert!(
        mirrored < 0.7 * plain,
        "asymmetry {mirrored} cp with mirror images, {plain} cp without"
    );
}

#[test]
fn king_mirrored_networks_see_a_record_and_its_mirror_image_alike() {
    let mut trainer = Trainer::new(
        fixture(),
        Settings {
            layout: InputLayout::KingMirrored,
            ..settings(1)
        },
    );
    trainer.epoch();
    let net = &trainer.net;
    // The same inputs, summed in another order: equal but for float rounding.
    let mirrored = mirror_asymmetry(net, &fixture());
    assert!(mirrored < 0.001, "{mirrored} cp apart");
    // The plain layout tells them apart, so the check above could fail.
    let mut plain = net.clone();
    plain.layout = InputLayout::Plain;
    let plain = mirror_asymmetry(&plain, &fixture());
    assert!(plain > 0.01, "{plain} cp apart");
}

#[test]
fn training_gives_the_same_network_on_any_number_of_threads() {
    let trained = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| {
            let mut trainer = Trainer::new(fixture(), settings(2));
            trainer.epoch();
            let report = trainer.epoch();
            (trainer.net, report.train_loss, report.held_out_loss)
        })
    };
    assert!(
        trained(1) == trained(3),
        "one thread and three trained different networks"
    );
}

#[test]
fn a_checkpoint_keeps_the_input_layout() {
    let dir = std::env::temp_dir().join(format!("sessa-train-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("epoch-001.ckpt");
    let mut mirrored = Trainer::new(
        fixture(),
        Settings {
            layout: InputLayout::KingMirrored,
            ..settings(1)
        },
    );
    mirrored.epoch();
    mirrored.save_checkpoint(&checkpoint).unwrap();
    // Resumed into a run set up with the plain layout, the network is the
    // king-mirrored one it was.
    let mut resumed = Trainer::new(fixture(), settings(1));
    resumed.resume(&checkpoint).unwrap();
    assert_eq!(resumed.net, mirrored.net);
    std::fs::remove_dir_all(&dir).unwrap();
}
