import 'reflect-metadata';
import { constants, generateKeyPairSync, sign } from 'node:crypto';
import { id_mgf1, id_RSASSA_PSS, id_sha256, RsaSaPssParams } from '@peculiar/asn1-rsa';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { verifySignature } from './signature';

describe('verifySignature', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const data = Buffer.from('tbsResponseData');
  const sha256 = new AlgorithmIdentifier({ algorithm: id_sha256, parameters: null });

  it('verifies RSASSA-PSS with the hash and salt length of its parameters (as openssl -rsigopt rsa_padding_mode:pss signs)', () => {
    const signature = sign('sha256', data, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    const params = new RsaSaPssParams({
      hashAlgorithm: sha256,
      maskGenAlgorithm: new AlgorithmIdentifier({ algorithm: id_mgf1, parameters: AsnConvert.serialize(sha256) }),
      saltLength: 32,
    });
    const algorithm = new AlgorithmIdentifier({ algorithm: id_RSASSA_PSS, parameters: AsnConvert.serialize(params) });
    expect(verifySignature(algorithm, spki, data, signature)).toBe(true);
    expect(verifySignature(algorithm, spki, Buffer.from('something else'), signature)).toBe(false);
  });

  it('still verifies PKCS#1 v1.5', () => {
    const signature = sign('sha256', data, privateKey);
    expect(verifySignature(new AlgorithmIdentifier({ algorithm: '1.2.840.113549.1.1.11', parameters: null }), spki, data, signature)).toBe(true);
  });
});
