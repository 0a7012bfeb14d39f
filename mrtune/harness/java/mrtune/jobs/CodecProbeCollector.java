package mrtune.jobs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PositionedReadable;
import org.apache.hadoop.fs.Seekable;
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
 * <p>Each segment of stage {@code final} is also timed (issue 20; stage {@code emitted}
 * gives bytes only): copied into memory once, it is written through
 * {@code IFile.Writer} without a codec and then with each codec, and every written copy is read
 * back once through {@code IFile.Reader} (checksum verified). Each pass is timed with
 * {@code ThreadMXBean.getCurrentThreadCpuTime}: the map thread's own CPU, which the other
 * processes of a loaded host do not advance (wall time would). A codec's compress cost is its
 * write passes' CPU less the codec-less pass's, over the uncompressed stream's bytes; its
 * uncompress cost, its read passes' CPU less the codec-less read's, over its compressed bytes:
 * exactly the ns/byte the cost model charges (compress per uncompressed byte, uncompress per
 * compressed byte; {@code costmodel/codecs.py}). The first 2 MiB a JVM measures go through
 * every pass once untimed first: class loading, lz4-java's and snappy-java's native library
 * extraction and the JIT's first compilations are a once-per-JVM cost, not a per-byte one.
 *
 * <p>Counters, group {@code mrtune.codec.probe}: {@code <stage>.SEGMENTS}, {@code <stage>.RECORDS},
 * {@code <stage>.RAW_BYTES} (bytes in), {@code <stage>.<Codec>.COMPRESSED_BYTES} (bytes out),
 * {@code <stage>.<Codec>.COMPRESS_CPU_NS} and {@code .UNCOMPRESS_CPU_NS}, the codec-less
 * passes' {@code <stage>.IFILE.WRITE_CPU_NS} and {@code .READ_CPU_NS} (no timing counters on a
 * JVM without thread CPU time), {@code <stage>.ROUNDTRIP_MISMATCH} if a read-back segment's
 * record count differed, and {@code <Codec>.UNAVAILABLE} for a codec that would not load
 * (e.g. ZStandard without libhadoop).
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
  /** Records of the first segment a JVM measures that are first passed untimed (warm-up). */
  private static final long WARM_BYTES = 2L << 20;
  private static boolean warmed;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private boolean timed;

  @Override
  @SuppressWarnings("unchecked")
  public void init(Context ctx) throws IOException, ClassNotFoundException {
    delegate.init(ctx);
    context = ctx;
    job = ctx.getJobConf();
    captureEmitted = job.get("mapreduce.job.combine.class") != null
        || job.get("mapred.combiner.class") != null;
    emittedLimit = job.getLong("mrtune.codec.probe.emitted.max.mb", 512) << 20;
    timed = threads.isCurrentThreadCpuTimeSupported();
    if (timed && !threads.isThreadCpuTimeEnabled()) {
      threads.setThreadCpuTimeEnabled(true);
    }
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
        IFile.Writer<Object, Object> w = writer(c, new DataOutputBuffer());
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

  private IFile.Writer<Object, Object> writer(CompressionCodec codec, OutputStream sink)
      throws IOException {
    return new IFile.Writer<>(job, new FSDataOutputStream(sink, null), null, null, codec, null);
  }

  private Task.TaskReporter reporter() {
    return context.getReporter();
  }

  private org.apache.hadoop.mapred.Counters.Counter counter(String name) {
    return reporter().getCounter(GROUP, name);
  }

  /** Read each segment of the final {@code file.out} into memory and measure it per codec. */
  private void probeFinal(List<String> names, List<CompressionCodec> codecs) throws IOException {
    MapOutputFile mof = context.getMapTask().getMapOutputFile();
    Path data = mof.getOutputFile();
    SpillRecord index = new SpillRecord(mof.getOutputIndexFile(), job);
    FileSystem rfs = FileSystem.getLocal(job).getRaw();
    CompressionCodec stored = null;
    if (job.getCompressMapOutput()) {
      stored = ReflectionUtils.newInstance(job.getMapOutputCompressorClass(DefaultCodec.class), job);
    }
    Stage stage = new Stage(codecs.size());
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    for (int p = 0; p < index.size(); p++) {
      IndexRecord rec = index.getIndex(p);
      FSDataInputStream in = rfs.open(data);
      in.seek(rec.startOffset);
      IFile.Reader<Object, Object> reader = new IFile.Reader<>(job, in, rec.partLength, stored, null);
      Segment seg = new Segment();
      while (reader.nextRawKey(k)) {
        reader.nextRawValue(v);
        seg.add(k, v);
      }
      reader.close();
      measure(stage, codecs, seg.buf.getData(), seg.ks, seg.vs, seg.ve, null, 0, seg.n, timed);
      if (index.size() == 1) {
        probePartitions(names, codecs, seg);
      }
    }
    record("final", names, stage, index.size(), timed);
  }

  /**
   * The final data as a run with {@code r} reducers would store it, for every {@code r} of
   * {@code mrtune.codec.probe.partitions} (off unless set; benchmarks/codec_order_study.py): the one segment of a single-reducer probe dealt to
   * {@code r} partitions by the job's own partitioner (key order kept within a partition, as
   * the sort-and-spill leaves it), each partition through its own {@code IFile.Writer} and
   * codec stream. A partition holds 1/r of the keys, so neighbouring records share less (key
   * prefixes, lengths) within a codec's window and block: how well a codec compresses the
   * same records depends on {@code r}. Bytes only, counters {@code parts<r>.SEGMENTS},
   * {@code .RAW_BYTES} and {@code .<Codec>.COMPRESSED_BYTES}.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void probePartitions(List<String> names, List<CompressionCodec> codecs, Segment seg)
      throws IOException {
    String spec = job.get("mrtune.codec.probe.partitions", "");
    if (spec.trim().isEmpty() || !job.getUseNewMapper()) {
      return;
    }
    org.apache.hadoop.mapreduce.Partitioner<Object, Object> partitioner;
    try {
      partitioner = (org.apache.hadoop.mapreduce.Partitioner<Object, Object>)
          ReflectionUtils.newInstance(
              new org.apache.hadoop.mapreduce.task.JobContextImpl(job, null)
                  .getPartitionerClass(), job);
    } catch (ClassNotFoundException e) {
      throw new IOException(e);
    }
    SerializationFactory sf = new SerializationFactory(job);
    org.apache.hadoop.io.serializer.Deserializer kd =
        sf.getDeserializer(job.getMapOutputKeyClass());
    org.apache.hadoop.io.serializer.Deserializer vd =
        sf.getDeserializer(job.getMapOutputValueClass());
    DataInputBuffer kin = new DataInputBuffer();
    DataInputBuffer vin = new DataInputBuffer();
    kd.open(kin);
    vd.open(vin);
    byte[] buf = seg.buf.getData();
    for (String item : spec.split(",")) {
      int r = Integer.parseInt(item.trim());
      int[] of = new int[seg.n];
      Object key = null;
      Object value = null;
      for (int i = 0; i < seg.n; i++) {
        kin.reset(buf, seg.ks[i], seg.vs[i] - seg.ks[i]);
        vin.reset(buf, seg.vs[i], seg.ve[i] - seg.vs[i]);
        key = kd.deserialize(key);
        value = vd.deserialize(value);
        of[i] = partitioner.getPartition(key, value, r);
      }
      // records of partition 0, then 1, ...: key order kept within each (a stable bucket pass)
      int[] start = new int[r + 1];
      for (int i = 0; i < seg.n; i++) {
        start[of[i] + 1]++;
      }
      for (int p = 0; p < r; p++) {
        start[p + 1] += start[p];
      }
      int[] order = new int[seg.n];
      int[] next = Arrays.copyOf(start, r);
      for (int i = 0; i < seg.n; i++) {
        order[next[of[i]]++] = i;
      }
      Stage st = new Stage(codecs.size());
      for (int p = 0; p < r; p++) {
        measure(st, codecs, buf, seg.ks, seg.vs, seg.ve, order, start[p], start[p + 1], false);
      }
      record("parts" + r, names, st, r, false);
    }
  }

  /**
   * One segment through {@code IFile.Writer} without a codec and then with each codec, and each
   * result read back once through {@code IFile.Reader}: what a spill, a merge pass or a shuffle
   * does with the segment. Every pass is timed on this thread's CPU clock
   * ({@code ThreadMXBean.getCurrentThreadCpuTime}), which other processes on the host do not
   * advance: a codec's cost is its passes' time less the codec-less pass's (the IFile framing,
   * the record copy and the CRC32 of the checksum stream, which the model prices elsewhere).
   * Records {@code order[from..to)} (or {@code from..to} when {@code order} is null) of
   * {@code buf}, laid out by key start, value start and value end.
   */
  private void measure(Stage st, List<CompressionCodec> codecs, byte[] buf, int[] ks, int[] vs,
      int[] ve, int[] order, int from, int to, boolean time) throws IOException {
    if (time && !warmed) {
      // class loading, native library extraction (lz4-java, snappy-java) and the JIT's
      // compilation of the codec loops happen once per JVM: they are not a per-byte cost
      warmed = true;
      int end = from;
      long bytes = 0;
      while (end < to && bytes < WARM_BYTES) {
        int r = order == null ? end : order[end];
        bytes += ve[r] - ks[r];
        end++;
      }
      measure(new Stage(codecs.size()), codecs, buf, ks, vs, ve, order, from, end, true);
    }
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    DataOutputBuffer sink = new DataOutputBuffer(1 << 16);
    long raw = 0;
    for (int c = 0; c <= codecs.size(); c++) {
      CompressionCodec codec = c == 0 ? null : codecs.get(c - 1);
      sink.reset();
      if (!time && codec == null) {
        continue; // the codec-less pass is only the timing baseline
      }
      long t0 = cpuNs();
      IFile.Writer<Object, Object> w = writer(codec, sink);
      for (int i = from; i < to; i++) {
        int r = order == null ? i : order[i];
        k.reset(buf, ks[r], vs[r] - ks[r]);
        v.reset(buf, vs[r], ve[r] - vs[r]);
        w.append(k, v);
      }
      w.close();
      long t1 = cpuNs();
      long read = time ? readBack(codec, sink, to - from) : 0;
      long t2 = cpuNs();
      st.writeNs[c] += t1 - t0;
      st.readNs[c] += t2 - t1;
      st.comp[c] += w.getCompressedLength();
      st.mismatch += read;
      raw = w.getRawLength();
    }
    st.raw += raw;
    st.records += to - from;
  }

  /** Read a written segment back (checksum verified); returns 1 if its record count differs. */
  private long readBack(CompressionCodec codec, DataOutputBuffer segment, int records)
      throws IOException {
    FSDataInputStream in = new FSDataInputStream(
        new ByteSource(segment.getData(), segment.getLength()));
    IFile.Reader<Object, Object> r = new IFile.Reader<>(job, in, segment.getLength(), codec, null);
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    int n = 0;
    while (r.nextRawKey(k)) {
      r.nextRawValue(v);
      n++;
    }
    r.close();
    return n == records ? 0 : 1;
  }

  /** This thread's CPU time in ns, or 0 where the JVM cannot tell (no timing counters then). */
  private long cpuNs() {
    return timed ? threads.getCurrentThreadCpuTime() : 0L;
  }

  private void record(String stage, List<String> names, Stage st, int segments, boolean time) {
    counter(stage + ".SEGMENTS").increment(segments);
    counter(stage + ".RECORDS").increment(st.records);
    counter(stage + ".RAW_BYTES").increment(st.raw);
    if (st.mismatch > 0) {
      counter(stage + ".ROUNDTRIP_MISMATCH").increment(st.mismatch);
    }
    if (time) {
      counter(stage + ".IFILE.WRITE_CPU_NS").increment(st.writeNs[0]);
      counter(stage + ".IFILE.READ_CPU_NS").increment(st.readNs[0]);
    }
    for (int c = 0; c < names.size(); c++) {
      counter(stage + "." + names.get(c) + ".COMPRESSED_BYTES").increment(st.comp[c + 1]);
      if (time) {
        counter(stage + "." + names.get(c) + ".COMPRESS_CPU_NS").increment(st.writeNs[c + 1]);
        counter(stage + "." + names.get(c) + ".UNCOMPRESS_CPU_NS").increment(st.readNs[c + 1]);
      }
    }
  }

  /** Sort every emitted record by (partition, key) and measure each partition per codec. */
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
    Stage stage = new Stage(codecs.size());
    int i = 0;
    for (int p = 0; p < partitions; p++) {
      int from = i;
      while (i < count && part[order[i]] == p) {
        i++;
      }
      // bytes only: the profile's codec CPU is the shuffled data's (stage final)
      measure(stage, codecs, buf, keyStart, valStart, recEnd, order, from, i, false);
    }
    record("emitted", names, stage, partitions, false);
  }

  /** Sums of one stage over its segments; index 0 is the pass without a codec. */
  private static final class Stage {
    final long[] writeNs;
    final long[] readNs;
    final long[] comp;
    long raw;
    long records;
    long mismatch;

    Stage(int codecs) {
      writeNs = new long[codecs + 1];
      readNs = new long[codecs + 1];
      comp = new long[codecs + 1];
    }
  }

  /** One segment's records copied back to back (key start, value start, value end). */
  private static final class Segment {
    final DataOutputBuffer buf = new DataOutputBuffer(1 << 20);
    int[] ks = new int[1024];
    int[] vs = new int[1024];
    int[] ve = new int[1024];
    int n;

    void add(DataInputBuffer k, DataInputBuffer v) throws IOException {
      if (n == ks.length) {
        ks = Arrays.copyOf(ks, 2 * n);
        vs = Arrays.copyOf(vs, 2 * n);
        ve = Arrays.copyOf(ve, 2 * n);
      }
      ks[n] = buf.getLength();
      buf.write(k.getData(), k.getPosition(), k.getLength() - k.getPosition());
      vs[n] = buf.getLength();
      buf.write(v.getData(), v.getPosition(), v.getLength() - v.getPosition());
      ve[n] = buf.getLength();
      n++;
    }
  }

  /** A byte array as the seekable stream {@code FSDataInputStream} requires. */
  private static final class ByteSource extends ByteArrayInputStream
      implements Seekable, PositionedReadable {
    ByteSource(byte[] data, int length) {
      super(data, 0, length);
    }

    @Override
    public void seek(long p) {
      pos = (int) Math.min(p, count);
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public boolean seekToNewSource(long target) {
      return false;
    }

    @Override
    public int read(long position, byte[] b, int off, int len) {
      if (position >= count) {
        return -1;
      }
      int n = (int) Math.min(len, count - position);
      System.arraycopy(buf, (int) position, b, off, n);
      return n;
    }

    @Override
    public void readFully(long position, byte[] b, int off, int len) throws IOException {
      if (read(position, b, off, len) < len) {
        throw new java.io.EOFException("past the end of the segment");
      }
    }

    @Override
    public void readFully(long position, byte[] b) throws IOException {
      readFully(position, b, 0, b.length);
    }
  }

}
