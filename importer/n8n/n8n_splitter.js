// langchain's CharacterTextSplitter and RecursiveCharacterTextSplitter
// (@langchain/textsplitters 1.0.1, text_splitter.js, MIT; the version n8n
// 2.8 runs), which n8n's text splitter nodes and the Default Data
// Loader's simple mode are. The package itself needs @langchain/core,
// whose langsmith needs Node's worker_threads, which a js block does not
// have: its splitting is here as it is there, lengths in UTF-16 code
// units as JavaScript's strings count them.

function splitOnSeparator(text, separator, keepSeparator) {
  let splits;
  if (separator) {
    if (keepSeparator) {
      const escaped = separator.replace(/[/\-\\^$*+?.()|[\]{}]/g, "\\$&");
      splits = text.split(new RegExp(`(?=${escaped})`));
    } else {
      splits = text.split(separator);
    }
  } else {
    splits = text.split("");
  }
  return splits.filter((s) => s !== "");
}

function joinDocs(docs, separator) {
  const text = docs.join(separator).trim();
  return text === "" ? null : text;
}

function mergeSplits(splits, separator, chunkSize, chunkOverlap) {
  const docs = [];
  const currentDoc = [];
  let total = 0;
  for (const d of splits) {
    const len = d.length;
    if (total + len + currentDoc.length * separator.length > chunkSize) {
      if (currentDoc.length > 0) {
        const doc = joinDocs(currentDoc, separator);
        if (doc !== null) docs.push(doc);
        while (total > chunkOverlap || (total + len + currentDoc.length * separator.length > chunkSize && total > 0)) {
          total -= currentDoc[0].length;
          currentDoc.shift();
        }
      }
    }
    currentDoc.push(d);
    total += len;
  }
  const doc = joinDocs(currentDoc, separator);
  if (doc !== null) docs.push(doc);
  return docs;
}

function recursiveSplit(text, separators, keepSeparator, chunkSize, chunkOverlap) {
  const finalChunks = [];
  let separator = separators[separators.length - 1];
  let newSeparators;
  for (let i = 0; i < separators.length; i += 1) {
    const s = separators[i];
    if (s === "") {
      separator = s;
      break;
    }
    if (text.includes(s)) {
      separator = s;
      newSeparators = separators.slice(i + 1);
      break;
    }
  }
  const splits = splitOnSeparator(text, separator, keepSeparator);
  let goodSplits = [];
  const sep = keepSeparator ? "" : separator;
  for (const s of splits) {
    if (s.length < chunkSize) {
      goodSplits.push(s);
    } else {
      if (goodSplits.length) {
        finalChunks.push(...mergeSplits(goodSplits, sep, chunkSize, chunkOverlap));
        goodSplits = [];
      }
      if (!newSeparators) {
        finalChunks.push(s);
      } else {
        finalChunks.push(...recursiveSplit(s, newSeparators, keepSeparator, chunkSize, chunkOverlap));
      }
    }
  }
  if (goodSplits.length) {
    finalChunks.push(...mergeSplits(goodSplits, sep, chunkSize, chunkOverlap));
  }
  return finalChunks;
}

function execute(input) {
  const { text, separators, keep_separator: keep, chunk_size: size, chunk_overlap: overlap } = input;
  let chunks;
  if (input.recursive) {
    chunks = recursiveSplit(text, separators, keep, size, overlap);
  } else {
    chunks = mergeSplits(splitOnSeparator(text, separators[0], keep), keep ? "" : separators[0], size, overlap);
  }
  return { chunks: chunks.map((c) => ({ text: c })) };
}
