package mrtune.jobs;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.io.compress.Lz4Codec;
import org.apache.hadoop.io.compress.SnappyCodec;
import org.apache.hadoop.io.compress.ZStandardCodec;
import org.apache.hadoop.io.serializer.SerializationFactory;
import org.apache.hadoop.io.serializer.Serializer;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputCollector;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.util.QuickSort;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * Codec probe (issue 20): Hadoop's own {@code MapTask.MapOutputBuffer}, plus a measurement of
 * how well every codec available here compresses THIS map's intermediate data.
 *
 * <p>Enabled by {@code mrtune.codec.probe=true} ({@link MrtTool} then sets
 * {@code mapreduce.job.map.output.collector.class} to this class). The map output itself is
 * written exactly as without the probe; after {@code flush()} has written the final
 * {@code file.out}, each partition segment is read back with {@code IFile.Reader} and appended,
 * record by record, to one {@code IFile.Writer} per codec over a counting sink. That is the
 * very stream a compressed run writes: vint key length, vint value length, key and value bytes
 * and the 2-byte EOF marker through the codec's stream (its block framing included), then the
 * uncompressed 4-byte checksum ({@code IFileOutputStream}). Hence, summed over segments,
 * {@code getCompressedLength()} is the map's {@code MAP_OUTPUT_MATERIALIZED_BYTES} under that
 * codec, and {@code getRawLength()} the uncompressed stream (records and EOF markers).
 *
 * <p>Stage {@code final} is the map output as shuffled (after the combiner, if any). Stage
 * {@code emitted} is what a run without the combiner would store: every record the map
 * emitted, sorted by (partition, key) as the sort-and-spill does (equal keys keep no order, as
 * in Hadoop's QuickSort; that changes nothing when their values are equal). It is only kept
 * when the job has a combiner (otherwise it equals {@code final}), on the heap, up to
 * {@code mrtune.codec.probe.emitted.max.mb} (512) serialized MiB per map; past that the stage
 * is dropped ({@code emitted.SKIPPED}) and a configuration without the combiner keeps the
 * shuffled data's ratio.
 *
 * <p>Counters, group {@code mrtune.codec.probe}: {@code <stage>.SEGMENTS}, {@code <stage>.RECORDS},
 * {@code <stage>.RAW_BYTES}, {@code <stage>.<Codec>.COMPRESSED_BYTES}, and
 * {@code <Codec>.UNAVAILABLE} for a codec that would not load (e.g. ZStandard without
 * libhadoop).
 */
public class CodecProbeCollector<K, V> implements MapOutputCollector<K, V> {
  public static final String GROUP = "mrtune.codec.probe";
  private static final String[] CODEC_NAMES = {
    "DefaultCodec", "GzipCodec", "BZip2Codec", "Lz4Codec", "SnappyCodec", "ZStandardCodec"
  };
  private static final Class<?>[] CODEC_CLASSES = {
    DefaultCodec.class, GzipCodec.class, BZip2Codec.class, Lz4Codec.class, SnappyCodec.class,
    ZStandardCodec.class
  };

  private final MapTask.MapOutputBuffer<K, V> delegate = new MapTask.MapOutputBuffer<>();
  private Context context;
  private JobConf job;
  private boolean captureEmitted;
  private DataOutputBuffer emitted;
  private Serializer<K> keySer;
  private Serializer<V> valSer;
  private int[] keyStart = new int[1024];
  private int[] valStart = new int[1024];
  private int[] recEnd = new int[1024];
  private int[] part = new int[1024];
  private int count;
  private long emittedLimit;

  @Override
  @SuppressWarnings("unchecked")
  public void init(Context ctx) throws IOException, ClassNotFoundException {
    delegate.init(ctx);
    context = ctx;
    job = ctx.getJobConf();
    captureEmitted = job.get("mapreduce.job.combine.class") != null
        || job.get("mapred.combiner.class") != null;
    emittedLimit = job.getLong("mrtune.codec.probe.emitted.max.mb", 512) << 20;
    if (captureEmitted) {
      emitted = new DataOutputBuffer(1 << 20);
      SerializationFactory sf = new SerializationFactory(job);
      keySer = sf.getSerializer((Class<K>) job.getMapOutputKeyClass());
      valSer = sf.getSerializer((Class<V>) job.getMapOutputValueClass());
      keySer.open(emitted);
      valSer.open(emitted);
    }
  }

  @Override
  public void collect(K key, V value, int partition) throws IOException, InterruptedException {
    delegate.collect(key, value, partition);
    if (!captureEmitted) {
      return;
    }
    if (emitted.getLength() > emittedLimit) {
      // the emitted copy lives on the heap: past the limit the stage is given up (counted),
      // the shuffled data's stage ("final") is measured all the same
      counter("emitted.SKIPPED").increment(1);
      captureEmitted = false;
      emitted = null;
      return;
    }
    if (count == part.length) {
      int n = count * 2;
      keyStart = Arrays.copyOf(keyStart, n);
      valStart = Arrays.copyOf(valStart, n);
      recEnd = Arrays.copyOf(recEnd, n);
      part = Arrays.copyOf(part, n);
    }
    keyStart[count] = emitted.getLength();
    keySer.serialize(key);
    valStart[count] = emitted.getLength();
    valSer.serialize(value);
    recEnd[count] = emitted.getLength();
    part[count] = partition;
    count++;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    delegate.close();
  }

  @Override
  public void flush() throws IOException, InterruptedException, ClassNotFoundException {
    delegate.flush();
    List<String> names = new ArrayList<>();
    List<CompressionCodec> codecs = available(names);
    probeFinal(names, codecs);
    if (captureEmitted) {
      probeEmitted(names, codecs);
      emitted = null;
    }
  }

  /** The codecs that load here; a codec that does not is counted as unavailable. */
  private List<CompressionCodec> available(List<String> names) {
    List<CompressionCodec> out = new ArrayList<>();
    for (int i = 0; i < CODEC_CLASSES.length; i++) {
      try {
        CompressionCodec c = (CompressionCodec) ReflectionUtils.newInstance(CODEC_CLASSES[i], job);
        Sink s = new Sink();
        IFile.Writer<Object, Object> w = writer(c, s);
        w.close();
        out.add(c);
        names.add(CODEC_NAMES[i]);
      } catch (Throwable t) { // a native codec without its library throws an Error
        System.err.println("mrtune codec probe: " + CODEC_NAMES[i] + " unavailable: " + t);
        counter(CODEC_NAMES[i] + ".UNAVAILABLE").increment(1);
      }
    }
    return out;
  }

  private IFile.Writer<Object, Object> writer(CompressionCodec codec, Sink sink)
      throws IOException {
    return new IFile.Writer<>(job, new FSDataOutputStream(sink, null), null, null, codec, null);
  }

  private Task.TaskReporter reporter() {
    return context.getReporter();
  }

  private org.apache.hadoop.mapred.Counters.Counter counter(String name) {
    return reporter().getCounter(GROUP, name);
  }

  /** Re-append each segment of the final {@code file.out} to one writer per codec. */
  private void probeFinal(List<String> names, List<CompressionCodec> codecs) throws IOException {
    MapOutputFile mof = context.getMapTask().getMapOutputFile();
    Path data = mof.getOutputFile();
    SpillRecord index = new SpillRecord(mof.getOutputIndexFile(), job);
    FileSystem rfs = FileSystem.getLocal(job).getRaw();
    CompressionCodec stored = null;
    if (job.getCompressMapOutput()) {
      stored = ReflectionUtils.newInstance(job.getMapOutputCompressorClass(DefaultCodec.class), job);
    }
    long[] comp = new long[codecs.size()];
    long raw = 0;
    long records = 0;
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    for (int p = 0; p < index.size(); p++) {
      IndexRecord rec = index.getIndex(p);
      FSDataInputStream in = rfs.open(data);
      in.seek(rec.startOffset);
      IFile.Reader<Object, Object> reader = new IFile.Reader<>(job, in, rec.partLength, stored, null);
      Sink[] sinks = new Sink[codecs.size()];
      List<IFile.Writer<Object, Object>> writers = new ArrayList<>();
      for (int c = 0; c < codecs.size(); c++) {
        sinks[c] = new Sink();
        writers.add(writer(codecs.get(c), sinks[c]));
      }
      while (reader.nextRawKey(k)) {
        reader.nextRawValue(v);
        for (IFile.Writer<Object, Object> w : writers) {
          int kp = k.getPosition();
          int vp = v.getPosition();
          w.append(k, v);
          k.reset(k.getData(), kp, k.getLength() - kp);
          v.reset(v.getData(), vp, v.getLength() - vp);
        }
        records++;
      }
      reader.close();
      raw += close(writers, comp);
    }
    record("final", names, comp, raw, records, index.size());
  }

  /** Close each writer, adding its compressed length; returns the (common) raw length. */
  private static long close(List<IFile.Writer<Object, Object>> writers, long[] comp)
      throws IOException {
    long raw = 0;
    for (int c = 0; c < writers.size(); c++) {
      IFile.Writer<Object, Object> w = writers.get(c);
      w.close();
      comp[c] += w.getCompressedLength();
      raw = w.getRawLength();
    }
    return raw;
  }

  private void record(String stage, List<String> names, long[] comp, long raw, long records,
      int segments) {
    counter(stage + ".SEGMENTS").increment(segments);
    counter(stage + ".RECORDS").increment(records);
    counter(stage + ".RAW_BYTES").increment(raw);
    for (int c = 0; c < names.size(); c++) {
      counter(stage + "." + names.get(c) + ".COMPRESSED_BYTES").increment(comp[c]);
    }
  }

  /** Sort every emitted record by (partition, key) and write each partition per codec. */
  @SuppressWarnings("unchecked")
  private void probeEmitted(List<String> names, List<CompressionCodec> codecs) throws IOException {
    final byte[] buf = emitted.getData();
    final RawComparator<K> cmp = (RawComparator<K>) job.getOutputKeyComparator();
    final int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    new QuickSort().sort(new org.apache.hadoop.util.IndexedSortable() {
      @Override
      public int compare(int a, int b) {
        int x = order[a];
        int y = order[b];
        if (part[x] != part[y]) {
          return Integer.compare(part[x], part[y]);
        }
        return cmp.compare(buf, keyStart[x], valStart[x] - keyStart[x],
            buf, keyStart[y], valStart[y] - keyStart[y]);
      }

      @Override
      public void swap(int a, int b) {
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
      }
    }, 0, count);
    int partitions = job.getNumReduceTasks();
    long[] comp = new long[codecs.size()];
    long raw = 0;
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    int i = 0;
    for (int p = 0; p < partitions; p++) {
      List<IFile.Writer<Object, Object>> writers = new ArrayList<>();
      for (CompressionCodec c : codecs) {
        writers.add(writer(c, new Sink()));
      }
      for (; i < count && part[order[i]] == p; i++) {
        int r = order[i];
        for (IFile.Writer<Object, Object> w : writers) {
          k.reset(buf, keyStart[r], valStart[r] - keyStart[r]);
          v.reset(buf, valStart[r], recEnd[r] - valStart[r]);
          w.append(k, v);
        }
      }
      raw += close(writers, comp);
    }
    record("emitted", names, comp, raw, count, partitions);
  }

  /** Discards what is written; {@code FSDataOutputStream} keeps the position (the length). */
  private static final class Sink extends OutputStream {
    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
