"""Speech commands: decoding audio with librosa through tf.py_function."""
import librosa
import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
SAMPLE_RATE = 16000


def load_mfcc(path):
    signal, _ = librosa.load(path.numpy().decode(), sr=SAMPLE_RATE)
    signal = np.pad(signal, (0, max(0, SAMPLE_RATE - len(signal))))[:SAMPLE_RATE]
    return librosa.feature.mfcc(y=signal, sr=SAMPLE_RATE, n_mfcc=40).astype(np.float32)


def tf_load_mfcc(path, label):
    mfcc = tf.py_function(load_mfcc, [path], tf.float32)  # expect: PL106
    mfcc.set_shape([40, 32])
    return mfcc, label


def spec_augment(mfcc):
    return np.roll(mfcc, np.random.randint(-3, 3), axis=1)


files = tf.io.gfile.glob("speech_commands/*/*.wav")
labels = [f.split("/")[-2] for f in files]
label_ids = tf.keras.layers.StringLookup(num_oov_indices=0)
label_ids.adapt(labels)

train_ds = tf.data.Dataset.from_tensor_slices((files, label_ids(labels)))
train_ds = train_ds.shuffle(len(files))
train_ds = train_ds.map(tf_load_mfcc)
train_ds = train_ds.map(
    lambda m, l: (tf.numpy_function(spec_augment, [m], tf.float32), l),  # expect: PL106
    num_parallel_calls=AUTOTUNE,
)
train_ds = train_ds.batch(64).prefetch(AUTOTUNE)

# Using tf.signal instead keeps everything in the graph.
def tf_mfcc(path, label):
    audio, _ = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)
    stft = tf.signal.stft(tf.squeeze(audio, -1), frame_length=640, frame_step=320)
    spectrogram = tf.abs(stft)
    log_mel = tf.math.log(tf.tensordot(spectrogram, tf.signal.linear_to_mel_weight_matrix(40, 321, SAMPLE_RATE), 1) + 1e-6)
    return tf.signal.mfccs_from_log_mel_spectrograms(log_mel), label


eval_ds = tf.data.Dataset.from_tensor_slices((files, label_ids(labels)))
eval_ds = eval_ds.map(tf_mfcc, num_parallel_calls=AUTOTUNE).batch(64).prefetch(AUTOTUNE)

model = tf.keras.Sequential(
    [
        tf.keras.layers.Reshape((40, 32, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.GlobalMaxPooling2D(),
        tf.keras.layers.Dense(len(set(labels))),
    ]
)
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=20)
model.evaluate(eval_ds)
