//! The sounds R-CODE plays (`stick add --sound`): which WAV formats each model takes, and
//! the conversion to one of them (`--convert-sound`). hound reads and writes the WAV;
//! rubato resamples it (its FFT resampler, with an anti-aliasing filter).

use std::fmt::Display;
use std::path::Path;

/// Why a sound cannot be checked or converted, in a sentence (naming the file where the
/// caller gave one).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SoundError(String);

type Result<T> = std::result::Result<T, SoundError>;

/// Mono integer PCM at a rate and sample size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pcm {
    pub rate: u32,
    pub bits: u16,
}

/// What R-CODE plays from a WAV, first the format a conversion makes. The ERS-210/220:
/// 8 kHz 8-bit mono (`../shared/specs/rcode.md`); the ERS-7 also 16 kHz 16-bit mono
/// (Sony's RTool guide; its IMA ADPCM is neither read nor written here).
pub fn playable(model: &str) -> &'static [Pcm] {
    const NARROW: Pcm = Pcm {
        rate: 8000,
        bits: 8,
    };
    const WIDE: Pcm = Pcm {
        rate: 16000,
        bits: 16,
    };
    match model {
        "ERS-7" => &[WIDE, NARROW],
        _ => &[NARROW],
    }
}

/// Input rates a conversion takes: every rate audio files are made at, and a bound that
/// keeps the resampler's blocks small (their size follows the two rates' common divisor).
const RATES: std::ops::RangeInclusive<u32> = 4000..=192_000;

fn described(spec: &hound::WavSpec) -> String {
    let kind = match spec.sample_format {
        hound::SampleFormat::Int => "PCM",
        hound::SampleFormat::Float => "float",
    };
    format!(
        "{} Hz, {}-bit {kind}, {} channel{}",
        spec.sample_rate,
        spec.bits_per_sample,
        spec.channels,
        if spec.channels == 1 { "" } else { "s" }
    )
}

fn fits(spec: &hound::WavSpec, model: &str) -> bool {
    spec.channels == 1
        && spec.sample_format == hound::SampleFormat::Int
        && playable(model)
            .iter()
            .any(|p| p.rate == spec.sample_rate && p.bits == spec.bits_per_sample)
}

/// Why a WAV cannot go on the stick as it is, or `None` where R-CODE plays it.
pub fn unplayable(data: &[u8], model: &str) -> Result<Option<String>> {
    let spec = match hound::WavReader::new(data) {
        Ok(r) => r.spec(),
        // The ERS-7 plays IMA ADPCM, which hound does not read.
        Err(hound::Error::Unsupported) if model == "ERS-7" => {
            tracing::warn!("a WAV format this tool cannot check (IMA ADPCM?): added as it is");
            return Ok(None);
        }
        Err(e) => return Err(SoundError(format!("not a WAV file R-CODE can play: {e}"))),
    };
    if fits(&spec, model) {
        return Ok(None);
    }
    let wanted: Vec<String> = playable(model)
        .iter()
        .map(|p| format!("{} Hz {}-bit mono PCM", p.rate, p.bits))
        .collect();
    Ok(Some(format!(
        "{}; R-CODE on the {model} plays {} only",
        described(&spec),
        wanted.join(" or ")
    )))
}

/// The sound as R-CODE on `model` plays it: mixed down to mono, resampled and requantised
/// to the model's first format. A WAV that fits already is returned unchanged.
pub fn convert(path: &Path, data: &[u8], model: &str) -> Result<Vec<u8>> {
    let at = || path.display().to_string();
    let failed = |e: &dyn Display| SoundError(format!("{}: {e}", at()));
    let mut reader = hound::WavReader::new(data).map_err(|e| failed(&e))?;
    let spec = reader.spec();
    if fits(&spec, model) {
        return Ok(data.to_vec());
    }
    if !RATES.contains(&spec.sample_rate) {
        return Err(SoundError(format!(
            "{}: {} Hz; a conversion takes {} to {} Hz",
            at(),
            spec.sample_rate,
            RATES.start(),
            RATES.end()
        )));
    }
    let samples: Vec<f64> = match spec.sample_format {
        hound::SampleFormat::Float => reader
            .samples::<f32>()
            .map(|s| s.map(f64::from))
            .collect::<std::result::Result<_, _>>(),
        hound::SampleFormat::Int => {
            let full_scale = f64::from(1u32 << (spec.bits_per_sample.clamp(1, 32) - 1));
            reader
                .samples::<i32>()
                .map(|s| s.map(|v| f64::from(v) / full_scale))
                .collect::<std::result::Result<_, _>>()
        }
    }
    .map_err(|e| failed(&e))?;
    let channels = usize::from(spec.channels.max(1));
    let mono: Vec<f64> = samples
        .chunks_exact(channels)
        .map(|frame| frame.iter().sum::<f64>() / channels as f64)
        .collect();
    if mono.is_empty() {
        return Err(SoundError(format!("{}: the sound holds no samples", at())));
    }
    let to = playable(model)[0];
    let resampled = if spec.sample_rate == to.rate {
        mono
    } else {
        resample(&mono, spec.sample_rate, to.rate).map_err(|e| failed(&e))?
    };
    let out_spec = hound::WavSpec {
        channels: 1,
        sample_rate: to.rate,
        bits_per_sample: to.bits,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = std::io::Cursor::new(Vec::new());
    let mut writer = hound::WavWriter::new(&mut bytes, out_spec).map_err(|e| failed(&e))?;
    // hound takes signed samples and stores 8-bit ones unsigned, as WAV does.
    let peak = f64::from((1u32 << (to.bits - 1)) - 1);
    for x in resampled {
        let level = (x * peak).round().clamp(-peak - 1.0, peak);
        match to.bits {
            8 => writer.write_sample(level as i8),
            _ => writer.write_sample(level as i16),
        }
        .map_err(|e| failed(&e))?;
    }
    writer.finalize().map_err(|e| failed(&e))?;
    tracing::info!(
        "{}: {} converted to {} Hz {}-bit mono PCM",
        at(),
        described(&spec),
        to.rate,
        to.bits
    );
    Ok(bytes.into_inner())
}

/// One channel from `from` Hz to `to` Hz, lined up with the input (rubato trims its delay).
fn resample(mono: &[f64], from: u32, to: u32) -> std::result::Result<Vec<f64>, String> {
    use rubato::audioadapter_buffers::direct::InterleavedSlice;
    use rubato::{Fft, FixedSync, Resampler as _};
    let mut resampler = Fft::<f64>::new(from as usize, to as usize, 1024, 1, FixedSync::Both)
        .map_err(|e| e.to_string())?;
    let input = InterleavedSlice::new(mono, 1, mono.len()).map_err(|e| e.to_string())?;
    let output = resampler
        .process_all(&input, mono.len(), None)
        .map_err(|e| e.to_string())?;
    Ok(output.take_data())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAV of `seconds` of a sine at `hz`, `amplitude` of full scale, in every channel.
    fn tone(spec: hound::WavSpec, hz: f64, amplitude: f64, seconds: f64) -> Vec<u8> {
        let mut bytes = std::io::Cursor::new(Vec::new());
        let mut w = hound::WavWriter::new(&mut bytes, spec).unwrap();
        let n = (seconds * f64::from(spec.sample_rate)) as usize;
        for i in 0..n {
            let x = amplitude
                * (std::f64::consts::TAU * hz * i as f64 / f64::from(spec.sample_rate)).sin();
            for _ in 0..spec.channels {
                match spec.sample_format {
                    hound::SampleFormat::Float => w.write_sample(x as f32).unwrap(),
                    hound::SampleFormat::Int => {
                        w.write_sample((x * 32767.0).round() as i16).unwrap()
                    }
                }
            }
        }
        w.finalize().unwrap();
        bytes.into_inner()
    }

    fn spec(rate: u32, channels: u16, float: bool) -> hound::WavSpec {
        hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: if float { 32 } else { 16 },
            sample_format: if float {
                hound::SampleFormat::Float
            } else {
                hound::SampleFormat::Int
            },
        }
    }

    /// The converted sound's samples (as fractions of full scale) and its spec.
    fn converted(wav: &[u8], model: &str) -> (hound::WavSpec, Vec<f64>) {
        let out = convert(Path::new("t.wav"), wav, model).unwrap();
        let mut r = hound::WavReader::new(&out[..]).unwrap();
        let spec = r.spec();
        let scale = f64::from(1u32 << (spec.bits_per_sample - 1));
        let s = r
            .samples::<i32>()
            .map(|v| f64::from(v.unwrap()) / scale)
            .collect();
        (spec, s)
    }

    fn rms(s: &[f64]) -> f64 {
        (s.iter().map(|x| x * x).sum::<f64>() / s.len() as f64).sqrt()
    }

    /// Upward zero crossings per second: the tone's frequency, measured without the
    /// resampler's own arithmetic.
    fn frequency(s: &[f64], rate: u32) -> f64 {
        let ups = s.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
        ups as f64 * f64::from(rate) / s.len() as f64
    }

    #[test]
    fn a_cd_quality_stereo_tone_becomes_what_the_ers210_plays_and_keeps_its_pitch() {
        let wav = tone(spec(44100, 2, false), 440.0, 0.5, 2.0);
        assert!(unplayable(&wav, "ERS-210")
            .unwrap()
            .unwrap()
            .contains("44100 Hz, 16-bit PCM, 2 channels"));
        let (out, s) = converted(&wav, "ERS-210");
        assert_eq!(
            (out.sample_rate, out.bits_per_sample, out.channels),
            (8000, 8, 1)
        );
        assert_eq!(
            unplayable(
                &convert(Path::new("t.wav"), &wav, "ERS-210").unwrap(),
                "ERS-210"
            )
            .unwrap(),
            None
        );
        // Two seconds long, at the same pitch and loudness (an 8-bit step is 1/128).
        assert!((s.len() as i64 - 16000).abs() <= 2, "{}", s.len());
        let steady = &s[400..s.len() - 400];
        assert!(
            (frequency(steady, 8000) - 440.0).abs() < 2.0,
            "{}",
            frequency(steady, 8000)
        );
        assert!(
            (rms(steady) - 0.5 / 2f64.sqrt()).abs() < 0.01,
            "{}",
            rms(steady)
        );
    }

    #[test]
    fn a_tone_above_the_new_nyquist_frequency_is_filtered_not_folded() {
        // 5 kHz cannot be played at 8 kHz: folded, it would come back as a 3 kHz tone.
        let wav = tone(spec(48000, 1, true), 5000.0, 0.5, 1.0);
        let (_, s) = converted(&wav, "ERS-220");
        assert!(rms(&s[400..s.len() - 400]) < 0.01, "{}", rms(&s));
    }

    #[test]
    fn the_ers7_gets_16_khz_16_bit_and_a_sound_that_fits_is_kept_as_it_is() {
        let wav = tone(spec(22050, 1, false), 1000.0, 0.25, 1.0);
        let (out, s) = converted(&wav, "ERS-7");
        assert_eq!((out.sample_rate, out.bits_per_sample), (16000, 16));
        assert!((frequency(&s[800..15200], 16000) - 1000.0).abs() < 3.0);
        let fits = tone(spec(16000, 1, false), 1000.0, 0.25, 0.1);
        assert_eq!(unplayable(&fits, "ERS-7").unwrap(), None);
        assert_eq!(convert(Path::new("t.wav"), &fits, "ERS-7").unwrap(), fits);
        assert!(unplayable(&fits, "ERS-210").unwrap().is_some());
    }

    #[test]
    fn what_cannot_be_converted_is_refused() {
        let odd_rate = tone(spec(1000, 1, false), 100.0, 0.5, 0.5);
        let e = convert(Path::new("t.wav"), &odd_rate, "ERS-210").unwrap_err();
        assert!(
            e.to_string()
                .contains("1000 Hz; a conversion takes 4000 to 192000 Hz"),
            "{e}"
        );
        let empty = tone(spec(44100, 1, false), 100.0, 0.5, 0.0);
        let e = convert(Path::new("t.wav"), &empty, "ERS-210").unwrap_err();
        assert!(e.to_string().contains("no samples"), "{e}");
        assert!(convert(Path::new("t.wav"), b"RIFF\x04\x00\x00\x00WAVE", "ERS-210").is_err());
        assert!(unplayable(b"not a wav", "ERS-210").is_err());
    }
}
